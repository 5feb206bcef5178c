import { reasonPhrase } from "corral/engine";
import type { AnyContext } from "../context.ts";
import { type ErrorFormat, writeErrorAnswer } from "./error-format.ts";

// biome-ignore lint/suspicious/noExplicitAny: handlers of every App type share these slots.
type AnyRouteHandler = (ctx: any) => void | Promise<void>;

/** The App's answers to requests no route serves, when set. */
export interface MissHandlers {
  notFound: AnyRouteHandler | undefined;
  methodNotAllowed: AnyRouteHandler | undefined;
}

const noHeaders: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Answers a request no route serves: with the App's handler for it when one is set, otherwise
 * with `status` (404, 405 or 501) in the App's error format.
 */
export function answerRouteMiss(
  ctx: AnyContext,
  status: 404 | 405 | 501,
  handler: ((ctx: AnyContext) => void | Promise<void>) | undefined,
  format: ErrorFormat,
): void | Promise<void> {
  if (handler !== undefined) return handler(ctx);
  writeErrorAnswer(
    ctx.response,
    { status, message: reasonPhrase(status), headers: noHeaders },
    format,
  );
}
