import type { MessageBufferPool } from "./message-buffer-pool.ts";
import type { OutboundSocket } from "./outbound-queue.ts";
import type { WebSocketSession } from "./websocket-session.ts";
import type { WebSocketCounters } from "./websocket-stats.ts";

/** What a session needs of its socket (Bun's TCP socket or the in-memory one). */
export interface WebSocketTransport extends OutboundSocket {
  pause(): void;
  resume(): void;
  end(): void;
  terminate(): void;
  /**
   * A message handler that outlived the connection settled: the connection's memory, which held
   * its message, may serve another client now.
   */
  released(): void;
}

/** The engine-wide services every session shares. */
export interface WebSocketContext {
  readonly counters: WebSocketCounters;
  readonly pool: MessageBufferPool;
  readonly writeStallMs: number;
  /** Coarse monotonic milliseconds, advanced by the sweep. */
  now(): number;
  /** Counts bytes the sockets took. */
  countBytesOut(bytes: number): void;
  /** Flushes the session at the end of this turn (once, however many sends it got). */
  scheduleFlush(session: WebSocketSession): void;
}

/** The application's side of a WebSocket: the engine calls these. */
export interface WebSocketHandler {
  /** The 101 is out: the WebSocket is open (sends made before it went out follow it). */
  open?(session: WebSocketSession): void;
  /**
   * A whole message. `data` is borrowed: valid until this returns or its promise settles. No
   * further message is read from this client until then.
   */
  message(session: WebSocketSession, data: Uint8Array, isText: boolean): void | Promise<void>;
  /** The queue went empty after a send was backpressured. */
  drain?(session: WebSocketSession): void;
  /**
   * The connection is gone; called exactly once after `open` (never for a client gone before its
   * 101 left). `code` is 1006 when no close frame came.
   */
  close(session: WebSocketSession, code: number, reason: string): void;
  /**
   * One of the callbacks above threw, or `message`'s promise rejected. The engine never lets such
   * an error past it: it counts it (`stats().webSockets.callbackFailures`), tells it here (for the
   * operator's log), and closes the socket with 1011 (RFC 6455 §7.4.1), unless the failed call
   * was `close` (the socket is gone already). A throw from here is ignored.
   */
  failed?(session: WebSocketSession, error: unknown, callback: WebSocketCallback): void;
}

/** Which of a `WebSocketHandler`'s callbacks failed. */
export type WebSocketCallback = "open" | "message" | "drain" | "close";
