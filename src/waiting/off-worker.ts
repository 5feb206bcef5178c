import type { Exchange } from "corral/engine";

/**
 * Awaits `pending` with the engine worker given back now (`ctx.awaitOffWorker`: the caller checked
 * that it may be, and awaits at once, as documented), and takes it back, fairly, before the
 * handler goes on. Rejects with `ClientGoneError` when the client left meanwhile, whatever
 * `pending` did.
 *
 * Written with `then`, not as an async function: when a worker is free at once (the usual case)
 * the handler goes on one promise job after `pending` settles, where awaiting the worker and
 * returning through async functions took four more (counted with bench/instructions.ts, a wait
 * off the worker cost 3,950 instructions more than a plain `await`, now 1,900).
 */
export function awaitWithWorkerGivenBack<T>(
  exchange: Exchange,
  pending: Promise<T> | T,
): Promise<T> {
  exchange.releaseWorker();
  return Promise.resolve(pending).then(
    (value) => takeWorkerBack(exchange, value, undefined, false),
    (error: unknown) => takeWorkerBack<T>(exchange, undefined as T, error, true),
  );
}

/**
 * Awaits `pending` with the engine worker given back when the handler cannot tell the
 * difference: nothing drafted but header lines (they are kept), no stream flush under way, and
 * no request body living in the worker's storage (a body borrowed from the socket stays).
 * Otherwise the worker is held and fair dispatch keeps other routes served.
 */
export function awaitOffWorkerUnseen<T>(exchange: Exchange, pending: Promise<T>): Promise<T> {
  if (!exchange.canReleaseWorker || exchange.bodyInWorker) return pending;
  return new WaitOffWorker(exchange, pending);
}

/**
 * A wait that gives the worker back only while the handler waits on it. Releasing it when the
 * wait began broke handlers that did not await it at once: one that started a job and answered
 * without awaiting it (`void pool.run(job)`, a background task) or drafted its answer before the
 * `await` found no worker to draft into, a 500. So the worker goes back when the promise is
 * waited on (`then`: an `await`, `Promise.all`, a `.then` or `.catch`), checked one microtask
 * later, when a handler that only chained a callback and went on has drafted or returned, and
 * the request then keeps its worker. A handler that waits on something else meanwhile keeps it.
 *
 * A subclass of Promise, so that waiting on it is seen: `await` and `Promise.resolve` call the
 * `then` of a promise whose constructor is not `Promise`. Its derived promises are plain ones.
 */
class WaitOffWorker<T> extends Promise<T> {
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  readonly #exchange: Exchange;
  #settle!: (outcome: T | Promise<T>) => void;
  #watched = false;
  #released = false;
  #done = false;

  constructor(exchange: Exchange, pending: Promise<T>) {
    let settle!: (outcome: T | Promise<T>) => void;
    super((resolve) => {
      settle = resolve;
    });
    this.#settle = settle;
    this.#exchange = exchange;
    pending.then(
      (value) => this.#finish(value, undefined, false),
      (error: unknown) => this.#finish(undefined as T, error, true),
    );
  }

  // biome-ignore lint/suspicious/noThenProperty: seeing the handler wait on it is the point.
  override then<Fulfilled = T, Rejected = never>(
    onFulfilled?: ((value: T) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onRejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    if (!this.#watched) {
      this.#watched = true;
      queueMicrotask(() => this.#releaseWhileWaited());
    }
    return super.then(onFulfilled, onRejected);
  }

  #releaseWhileWaited(): void {
    const exchange = this.#exchange;
    if (this.#done || !exchange.canReleaseWorker || exchange.bodyInWorker) return;
    exchange.releaseWorker();
    this.#released = true;
  }

  #finish(value: T, error: unknown, failed: boolean): void {
    this.#done = true;
    if (!this.#released) this.#settle(failed ? Promise.reject(error) : value);
    else {
      try {
        this.#settle(takeWorkerBack(this.#exchange, value, error, failed));
      } catch (thrown) {
        this.#settle(Promise.reject(thrown));
      }
    }
  }
}

/** Takes the worker back, then gives the handler what the wait gave (a value or an error). */
function takeWorkerBack<T>(
  exchange: Exchange,
  value: T,
  error: unknown,
  failed: boolean,
): T | Promise<T> {
  const taken = exchange.acquireWorker();
  if (!exchange.hasWorker) return taken.then(() => outcome(value, error, failed));
  return outcome(value, error, failed);
}

function outcome<T>(value: T, error: unknown, failed: boolean): T {
  if (failed) throw error;
  return value;
}
