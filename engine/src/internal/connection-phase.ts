/** Where the request in a connection is: reading, waiting for a worker, handled, or ending. */
export const readingHead = 0;
export const waitingWorker = 1;
export const readingBody = 2;
export const handling = 3;
export const closing = 4;
export const closed = 5;
/** Switched to WebSocket after a 101: the slot's `webSocket` switch owns the connection. */
export const webSocketPhase = 6;

/** One of the phases above. */
export type ConnectionPhase =
  | typeof readingHead
  | typeof waitingWorker
  | typeof readingBody
  | typeof handling
  | typeof closing
  | typeof closed
  | typeof webSocketPhase;

/**
 * How the connection ends once its output is written: it stays open, it closes, or it closes
 * and first lingers (reads and drops what the client still sends, so it reads the answer).
 */
export type Ending = "stay" | "close" | "linger";
