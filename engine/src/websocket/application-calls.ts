import type { WebSocketCallback, WebSocketHandler } from "./websocket-host.ts";
import type { WebSocketSession } from "./websocket-session.ts";
import type { WebSocketCounters } from "./websocket-stats.ts";

// The engine calls the application's callbacks from inside its socket events. A throw let
// through would leave the connection's bookkeeping half done: a `close` that threw used to keep
// its connection slot for good, so that as many such closes as `maxConnections` shut the server
// to everyone. Each call is therefore guarded here, and its error reported, never thrown on.

/** Calls `open` or `drain`; false when it threw (reported). */
export function callNotice(
  handler: WebSocketHandler,
  session: WebSocketSession,
  callback: "open" | "drain",
  counters: WebSocketCounters,
): boolean {
  try {
    handler[callback]?.(session);
    return true;
  } catch (error) {
    reportFailure(handler, session, callback, error, counters);
    return false;
  }
}

/** Calls `close`; a throw is reported. */
export function callClose(
  handler: WebSocketHandler,
  session: WebSocketSession,
  code: number,
  reason: string,
  counters: WebSocketCounters,
): void {
  try {
    handler.close(session, code, reason);
  } catch (error) {
    reportFailure(handler, session, "close", error, counters);
  }
}

/** Counts a failed callback and tells the handler's `failed`, whose own throw is ignored. */
export function reportFailure(
  handler: WebSocketHandler,
  session: WebSocketSession,
  callback: WebSocketCallback,
  error: unknown,
  counters: WebSocketCounters,
): void {
  counters.callbackFailures++;
  try {
    handler.failed?.(session, error, callback);
  } catch {
    // A report that fails has nothing left to tell: the connection goes on regardless.
  }
}
