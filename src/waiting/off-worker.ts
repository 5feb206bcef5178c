import type { Exchange } from "corral/engine";

/**
 * Awaits `pending` with the engine worker given back when the handler cannot tell the
 * difference: nothing drafted but header lines (they are kept), no stream flush under way, and
 * no request body living in the worker's storage (a body borrowed from the socket stays). The
 * worker is taken back, fairly, before the handler goes on. Otherwise the worker is held and fair
 * dispatch keeps other routes served. Rejects with `ClientGoneError` when the client left
 * meanwhile, whatever `pending` did.
 */
export async function awaitOffWorkerUnseen<T>(exchange: Exchange, pending: Promise<T>): Promise<T> {
  if (!exchange.canReleaseWorker || exchange.bodyInWorker) return pending;
  exchange.releaseWorker();
  try {
    return await pending;
  } finally {
    await exchange.acquireWorker();
  }
}
