import { type Io, middleware } from "corral";

/**
 * The local `serverTiming` adds: when the request entered it, on the `Io` monotonic clock.
 *
 * @example
 * const waitedMs = io.monotonicNow() - ctx.locals.requestStartMs;
 */
export interface ServerTimingLocals {
  requestStartMs: number;
}

/**
 * Measures each request on the App's `Io` monotonic clock (wall-clock steps cannot distort it)
 * and reports it in `after` as `Server-Timing: app;dur=<ms>` (W3C Server Timing §3), to
 * a tenth of a millisecond. It covers every middleware registered after it and the handler.
 * `after` runs on every answer: when the chain succeeded, when a middleware answered and stopped
 * it, and on the answer the App made for a thrown error (the handler's draft is discarded, the
 * timing still added). A stream's first flush sends the headers before `after` runs, so it
 * checks `ctx.response.headersSent` and leaves such a response as it is.
 *
 * @example
 * const app = new App({ io }).use(serverTiming(io));
 */
export function serverTiming(io: Io) {
  return middleware<ServerTimingLocals>({
    before(ctx) {
      ctx.locals.requestStartMs = io.monotonicNow();
    },
    after(ctx) {
      if (ctx.response.headersSent) return;
      const milliseconds = io.monotonicNow() - ctx.locals.requestStartMs;
      ctx.response.header("Server-Timing", `app;dur=${Number(milliseconds.toFixed(1))}`);
    },
  });
}
