import type { Exchange } from "corral/engine";

/**
 * Awaits `pending` with the engine worker given back (the caller checked that it may be), and
 * takes it back, fairly, before the handler goes on. Rejects with `ClientGoneError` when the
 * client left meanwhile, whatever `pending` did.
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

/**
 * Awaits `pending` with the engine worker given back when the handler cannot tell the
 * difference: nothing drafted but header lines (they are kept), no stream flush under way, and
 * no request body living in the worker's storage (a body borrowed from the socket stays).
 * Otherwise the worker is held and fair dispatch keeps other routes served.
 */
export function awaitOffWorkerUnseen<T>(exchange: Exchange, pending: Promise<T>): Promise<T> {
  if (!exchange.canReleaseWorker || exchange.bodyInWorker) return pending;
  return awaitWithWorkerGivenBack(exchange, pending);
}
