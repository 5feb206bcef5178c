import type { Exchange } from "corral/engine";
import type { Context } from "./context.ts";

/**
 * Where the App reports handler errors: any object with an `error` method, such as `console`
 * (the default). Each report is one call: a line naming the request, then the error itself, so
 * that `console.error` prints its stack.
 *
 * @example
 * const lines: string[] = [];
 * const app = new App({ shared: {}, log: { error: (line, error) => lines.push(`${line} ${error}`) } });
 */
export interface AppLog {
  error(...values: unknown[]): void;
}

type AnyContext = Context<unknown, Readonly<Record<string, string>>, object>;

/**
 * The handler errors of one App: counted (`stats().handlerFailures`) and logged once each. The
 * client never sees any of this: it gets the mapped answer, or an aborted stream.
 */
export class HandlerFailures {
  readonly #log: AppLog | null;
  /** Errors the App answered with a 5xx, or that came once the response was out. */
  count = 0;

  constructor(log: AppLog | null) {
    this.#log = log;
  }

  /** A handler error the App answered with a 5xx `status`. */
  answered(ctx: AnyContext, exchange: Exchange, error: unknown): void {
    this.count++;
    this.#log?.error(
      `corral: ${describeRequest(ctx, exchange)} answered ${exchange.status} after an error:`,
      error,
    );
  }

  /**
   * An error once the headers were out, after the handler returned (from an `after` hook) or after
   * it finished its stream: the response ends normally all the same.
   */
  afterHeaders(ctx: AnyContext, exchange: Exchange, error: unknown, fromAfterHook: boolean): void {
    this.count++;
    const what = fromAfterHook ? "an after hook" : "the handler";
    this.#log?.error(
      `corral: ${describeRequest(ctx, exchange)}: ${what} failed once the headers were sent; the response still ends normally:`,
      error,
    );
  }

  /** The handler failed mid-stream: the engine aborts the stream and counts the failure. */
  abortedStream(ctx: AnyContext, exchange: Exchange, error: unknown): void {
    this.#log?.error(
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
