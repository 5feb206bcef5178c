import type { Exchange, WebSocketCallback } from "corral/engine";
import type { Context } from "./context.ts";
import { type FailureLog, failureKind } from "./failure-log.ts";

type AnyContext = Context<unknown, Readonly<Record<string, string>>, object>;

/**
 * The handler errors of one App: counted (`stats().handlerFailures`) and logged, each in full up
 * to `failureReportsPerSecond` of its kind a second and summarised past it (see `FailureLog`).
 * The client never sees any of this: it gets the mapped answer, or an aborted stream.
 */
export class HandlerFailures {
  readonly #log: FailureLog;
  /** Errors the App answered with a 5xx, or that came once the response was out. */
  count = 0;

  constructor(log: FailureLog) {
    this.#log = log;
  }

  /** A handler error the App answered with a 5xx `status`. */
  answered(ctx: AnyContext, exchange: Exchange, error: unknown): void {
    this.count++;
    this.#log.report(
      failureKind(exchange.status, error),
      `corral: ${describeRequest(ctx, exchange)} answered ${exchange.status} after an error:`,
      error,
    );
  }

  /**
   * `what` (drafting the error's answer, `onError`, an `after` hook) threw `thrown` while the App
   * answered an error, which made the answer a bare 500; the error it answered is reported too.
   */
  answerFailed(ctx: AnyContext, exchange: Exchange, what: string, thrown: unknown): void {
    this.count++;
    this.#log.report(
      failureKind(`answering an error: ${what}`, thrown),
      `corral: ${describeRequest(ctx, exchange)}: ${what} failed while answering an error; the answer is a bare 500:`,
      thrown,
    );
  }

  /**
   * An error once the headers were out, after the handler returned (from an `after` hook) or after
   * it finished its stream: the response ends normally all the same.
   */
  afterHeaders(ctx: AnyContext, exchange: Exchange, error: unknown, fromAfterHook: boolean): void {
    this.count++;
    const what = fromAfterHook ? "an after hook" : "the handler";
    this.#log.report(
      failureKind("headers sent", error),
      `corral: ${describeRequest(ctx, exchange)}: ${what} failed once the headers were sent; the response still ends normally:`,
      error,
    );
  }

  /**
   * A callback of the WebSocket route `path` threw or rejected: the engine closed the socket with
   * 1011, or, for `close`, the socket was gone already.
   */
  webSocketCallback(path: string, callback: WebSocketCallback, error: unknown): void {
    this.count++;
    const outcome = callback === "close" ? "" : "; the socket is closed with 1011";
    this.#log.report(
      failureKind(`WebSocket ${callback}`, error),
      `corral: WebSocket ${path}: its ${callback} callback failed${outcome}:`,
      error,
    );
  }

  /** A middleware's `cleanup` hook threw: the answer was decided already, the other hooks ran. */
  cleanupFailed(ctx: AnyContext, exchange: Exchange, error: unknown): void {
    this.count++;
    this.#log.report(
      failureKind("cleanup", error),
      `corral: ${describeRequest(ctx, exchange)}: a cleanup hook failed; the answer was decided already:`,
      error,
    );
  }

  /** A continuation gave up `what` (one event, say) for `error`, and its stream goes on. */
  survived(ctx: AnyContext, exchange: Exchange, what: string, error: unknown): void {
    this.count++;
    this.#log.report(
      failureKind("stream survived", error),
      `corral: ${describeRequest(ctx, exchange)}: ${what}; the stream goes on:`,
      error,
    );
  }

  /** The handler failed mid-stream: the engine aborts the stream and counts the failure. */
  abortedStream(ctx: AnyContext, exchange: Exchange, error: unknown): void {
    this.#log.report(
      failureKind("stream aborted", error),
      `corral: ${describeRequest(ctx, exchange)}: the handler failed after its stream's headers were sent; the stream is aborted:`,
      error,
    );
  }
}

/** "GET /path", also once the request is over (a finished stream keeps what it answered). */
function describeRequest(ctx: AnyContext, exchange: Exchange): string {
  if (exchange.live) return `${exchange.method} ${exchange.path}`;
  return ctx.response.streamedRequest ?? "(a request already over)";
}
