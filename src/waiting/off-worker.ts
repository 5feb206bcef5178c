import type { Exchange } from "corral/engine";

/**
 * Awaits `pending` with the engine worker given back (the caller checked that it may be), and
 * takes it back, fairly, before the handler goes on. Rejects with `ClientGoneError` when the
 * client left meanwhile, whatever `pending` did.
 */
export async function awaitWithWorkerGivenBack<T>(
  exchange: Exchange,
  pending: Promise<T>,
): Promise<T> {
  exchange.releaseWorker();
  try {
    return await pending;
  } finally {
    await exchange.acquireWorker();
  }
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
