import type { Exchange } from "corral/engine";
import type { AnyContext } from "./context.ts";
import { type ErrorFormat, writeErrorAnswer } from "./errors/error-format.ts";
import { answerOf, type ErrorAnswer } from "./errors/status-error.ts";

/** What the App maps errors with: its format and its `onError` hook. */
export interface ErrorHandling {
  readonly format: ErrorFormat;
  readonly onError: ((error: unknown, ctx: AnyContext) => void | Promise<void>) | undefined;
}

const internalServerError: ErrorAnswer = Object.freeze({
  status: 500,
  message: "Internal Server Error",
  headers: Object.freeze({}),
});

/**
 * Told of an error met while answering another one (`what` failed: drafting the error's own
 * answer, `onError`), which made the answer a bare 500: the App logs it beside the first.
 */
export interface AnswerFailures {
  report(what: string, thrown: unknown): void;
}

/**
 * The one place an error becomes a response. The failed handler's draft (status, headers, body)
 * is discarded first, keeping the headers middleware set in `before` hooks; then the error's own
 * answer is drafted: an `HttpError`'s, a `StatusError`'s (`httpStatus`), or a bare 500 that says
 * nothing about the error. An answer that cannot be drafted (a body over the staging, a header
 * that is no header) is a bare 500 instead. `onError` then sees every error with that answer
 * drafted: it may leave it, replace it, or rethrow the error it got to keep it; any other throw
 * is a bare 500. Either failure goes to `failures`. The App's `after` hooks run on the answer
 * afterwards.
 */
export function mapError(
  ctx: AnyContext,
  exchange: Exchange,
  error: unknown,
  handling: ErrorHandling,
  failures: AnswerFailures,
): void | Promise<void> {
  discard(ctx, exchange);
  try {
    writeErrorAnswer(ctx.response, answerOf(error) ?? internalServerError, handling.format);
  } catch (thrown) {
    failures.report("drafting the answer to the error", thrown);
    internalError(ctx, exchange, handling.format);
  }
  const onError = handling.onError;
  if (onError === undefined) return;
  const keepOrFail = (thrown: unknown) => {
    if (thrown === error) return;
    failures.report("onError", thrown);
    internalError(ctx, exchange, handling.format);
  };
  try {
    const mapped = onError(error, ctx);
    if (mapped instanceof Promise) return mapped.then(undefined, keepOrFail);
  } catch (thrown) {
    keepOrFail(thrown);
  }
}

/**
 * Forgets the handler's draft. Header lines middleware drafted in `before` hooks stay (all of
 * them when a `before` hook threw): what middleware sets is on every answer.
 */
function discard(ctx: AnyContext, exchange: Exchange): void {
  ctx.response.discard();
  const kept = ctx.middlewareHeaderLength;
  exchange.resetResponse(kept < 0 ? exchange.draftedHeaderLength : kept);
}

/** Replaces whatever was drafted with a bare 500 (a mapper or an `after` hook failed). */
export function internalError(ctx: AnyContext, exchange: Exchange, format: ErrorFormat): void {
  if (!exchange.live) return;
  discard(ctx, exchange);
  writeErrorAnswer(ctx.response, internalServerError, format);
}
