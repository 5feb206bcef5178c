import type { Exchange } from "corral/engine";
import type { Context } from "./context.ts";
import { HttpError } from "./http-error.ts";
import { DecodeError } from "./params/decode-error.ts";
import { ParameterLimitError } from "./params/parameter-limit-error.ts";
import { MultipartError } from "./request/multipart.ts";
import { MediaTypeError } from "./request-view.ts";
import {
  ServiceBusyError,
  ServiceClosedError,
  ServiceTimeoutError,
} from "./services/service-errors.ts";
import { SessionStoreFullError } from "./sessions/session-errors.ts";

type AnyContext = Context<unknown, Readonly<Record<string, string>>, object>;

/**
 * The one place an error becomes a response. The failed handler's draft is discarded first.
 * `HttpError` answers its own status and message; request-format errors are 400 (415 for a wrong
 * media type); a full or timed-out worker service is a 503; everything else goes to the App's mapper, and without one (or if it fails) becomes
 * a bare 500 whose body says nothing about the error.
 */
export function mapError(
  ctx: AnyContext,
  exchange: Exchange,
  error: unknown,
  mapper: ((error: unknown, ctx: AnyContext) => void | Promise<void>) | undefined,
): void | Promise<void> {
  discard(ctx, exchange);
  const known = knownAnswer(error);
  if (known !== undefined) {
    ctx.response.text(known.status, `${known.message}\n`);
    for (const [name, value] of Object.entries(known.headers)) ctx.response.header(name, value);
    ctx.response.finalize();
    return;
  }
  if (mapper === undefined) return internalError(ctx, exchange);
  // The mapper starts from the bare 500 (not yet finalised), so one that only logs still answers
  // an error, and one that writes its own answer replaces it whole.
  ctx.response.text(500, "Internal Server Error\n");
  try {
    const mapped = mapper(error, ctx);
    if (mapped instanceof Promise) {
      return mapped.then(
        () => ctx.response.finalize(),
        () => internalError(ctx, exchange),
      );
    }
    ctx.response.finalize();
  } catch {
    internalError(ctx, exchange);
  }
}

interface KnownAnswer {
  readonly status: number;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
}

function knownAnswer(error: unknown): KnownAnswer | undefined {
  if (error instanceof HttpError) {
    return { status: error.status, message: error.message, headers: error.headers };
  }
  if (error instanceof DecodeError) {
    return { status: 400, message: `Bad Request: ${error.message}`, headers: {} };
  }
  if (error instanceof ParameterLimitError) {
    return { status: 400, message: `Bad Request: ${error.message}`, headers: {} };
  }
  if (error instanceof MultipartError) {
    return { status: 400, message: `Bad Request: ${error.message}`, headers: {} };
  }
  if (error instanceof MediaTypeError) {
    return { status: 415, message: `Unsupported Media Type: ${error.message}`, headers: {} };
  }
  if (error instanceof ServiceBusyError) {
    return {
      status: 503,
      message: "Service Unavailable: busy, retry later",
      headers: { "Retry-After": "1" },
    };
  }
  if (error instanceof SessionStoreFullError) {
    return {
      status: 503,
      message: "Service Unavailable: too many sessions, retry later",
      headers: { "Retry-After": String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof ServiceClosedError) {
    return { status: 503, message: "Service Unavailable: shutting down", headers: {} };
  }
  if (error instanceof ServiceTimeoutError) {
    return { status: 503, message: "Service Unavailable: the job took too long", headers: {} };
  }
  if (error instanceof URIError) {
    return {
      status: 400,
      message: "Bad Request: malformed percent-encoding in the path",
      headers: {},
    };
  }
  return undefined;
}

function discard(ctx: AnyContext, exchange: Exchange): void {
  ctx.response.discard();
  exchange.resetResponse();
}

function internalError(ctx: AnyContext, exchange: Exchange): void {
  if (!exchange.live) return;
  discard(ctx, exchange);
  ctx.response.text(500, "Internal Server Error\n");
  ctx.response.finalize();
}
