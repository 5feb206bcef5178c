import type { Exchange } from "corral/engine";
import { type Duration, toMilliseconds } from "./duration.ts";
import type { Io } from "./io.ts";
import type { RequestView } from "./request-view.ts";
import type { ResponseDraft } from "./response-draft.ts";
import { awaitOffWorkerUnseen, awaitWithWorkerGivenBack } from "./waiting/off-worker.ts";

/**
 * What a handler gets: the borrowed request, the shared state, the typed route captures and
 * middleware locals, the private response draft, and time and cancellation.
 *
 * @example
 * app.route("GET", "/users/:id", (ctx) => {
 *   ctx.response.text(200, `user ${ctx.params.id}`);
 * });
 */
export class Context<Shared, Params, Locals> {
  /** The request; borrowed, valid until the handler returns. */
  readonly request: RequestView;
  /** The response draft. */
  readonly response: ResponseDraft;
  /** The App's shared state (one object for the App's life). */
  readonly shared: Shared;
  /** The route's captures, percent-decoded. */
  params: Params;
  /** Fields middleware added for this request. */
  readonly locals: Locals;
  readonly #exchange: Exchange;
  readonly #io: Io;
  /**
   * The error being answered: set while `onError` and the `after` hooks run on the answer the App
   * made for a thrown error; `undefined` on every other answer.
   */
  error: unknown = undefined;
  /**
   * @internal Bytes of response header lines drafted before the handler ran (by `before` hooks):
   * kept when the handler's draft is discarded. -1 while `before` hooks run: all are theirs.
   */
  middlewareHeaderLength = -1;
  /** @internal How many middleware `before` hooks were entered: their cleanups run. */
  enteredMiddleware = 0;
  /** @internal The handler (or a `before` that stopped) succeeded: later errors are the after hooks'. */
  handlerSucceeded = false;

  /** @internal Made by the App for each request. */
  constructor(
    exchange: Exchange,
    io: Io,
    shared: Shared,
    request: RequestView,
    response: ResponseDraft,
    params: Params,
  ) {
    this.#exchange = exchange;
    this.#io = io;
    this.shared = shared;
    this.request = request;
    this.response = response;
    this.params = params;
    this.locals = {} as Locals;
  }

  /** Fires when the client goes away or a deadline ends the request. */
  get signal(): AbortSignal {
    return this.#exchange.signal;
  }

  /**
   * Awaits `pending` without holding an engine worker: the worker goes back to the engine while
   * `pending` is outstanding and is taken back before the handler goes on, so a slow wait does
   * not keep requests on other routes from running. `WorkerPool.run(request, { context: ctx })`
   * uses it. The request body goes with the worker: read it before. The worker is kept (the wait
   * is plain) when response body bytes are already drafted or a stream flush is under way, or
   * when an off-worker wait is already under way. Rejects with `ClientGoneError` when the client
   * left meanwhile, whatever `pending` did.
   *
   * @example
   * const rows = await ctx.awaitOffWorker(database.query(sql));
   */
  awaitOffWorker<T>(pending: Promise<T>): Promise<T> {
    // Not an async function: returning the wait's own promise spares the handler two promise
    // jobs (an async function settled with a promise waits for it through two).
    const exchange = this.#exchange;
    if (!exchange.canReleaseWorker) return Promise.resolve(pending);
    this.request.releaseBody("before awaiting off the worker");
    return awaitWithWorkerGivenBack(exchange, pending);
  }

  /**
   * Waits `duration` on the App's `Io` clock while the engine keeps serving others. The engine
   * worker is given back while the handler sleeps whenever the handler cannot tell (nothing
   * drafted but headers, no stream flush under way, no request body stored in the worker), and
   * taken back, ahead of new requests of its route, before the handler goes on: a route of sleeping handlers
   * does not keep other requests waiting. Rejects with the abort reason (a `ClientGoneError`) as
   * soon as the request's signal fires. Raced against another promise (`Promise.race`), the sleep
   * may lose while the worker is away: wrap the race in `awaitOffWorker` to get it back first.
   */
  sleep(duration: Duration | number): Promise<void> {
    const milliseconds = toMilliseconds(duration);
    const signal = this.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    return awaitOffWorkerUnseen(this.#exchange, this.#sleep(milliseconds, signal));
  }

  #sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        timer.cancel();
        reject(signal.reason);
      };
      const timer = this.#io.setTimer(milliseconds, () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/**
 * A context of any route: for helpers shared by handlers of several paths and App types.
 *
 * @example
 * function notFound(ctx: AnyContext, what: string): never {
 *   throw new HttpError(404, `${what} ${ctx.request.path} does not exist`);
 * }
 */
export type AnyContext<Shared = unknown> = Context<
  Shared,
  Readonly<Record<string, string>>,
  object
>;
