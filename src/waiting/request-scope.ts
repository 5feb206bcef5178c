import { AsyncLocalStorage } from "node:async_hooks";
import type { Exchange } from "corral/engine";

/**
 * The request whose handler is running, for services that wait off the engine worker without
 * being handed the `ctx` (a `WorkerPool` job awaited as `await pool.run(job)`). Handlers run in
 * it only once such a service exists (`enableRequestScope`): an App without one pays nothing.
 */
let scope: AsyncLocalStorage<Exchange> | undefined;
let enabled = false;

/** Makes every handler run from now on know its request (called by `new WorkerPool`). */
export function enableRequestScope(): void {
  scope ??= new AsyncLocalStorage<Exchange>();
  enabled = true;
}

/** Whether handlers run in the request scope. */
export function requestScopeEnabled(): boolean {
  return enabled;
}

/** Runs `handler(exchange)` with `exchange` as the current request. */
export function runInRequestScope<Result>(
  exchange: Exchange,
  handler: (exchange: Exchange) => Result,
): Result {
  return scope!.run(exchange, handler, exchange);
}

/** The request whose handler (or a promise it awaits) runs now, if any. */
export function currentExchange(): Exchange | undefined {
  return enabled ? scope!.getStore() : undefined;
}
