import type { EngineErrorName } from "../errors.ts";
import type { Exchange } from "../exchange.ts";
import type { Limits } from "../limits.ts";
import type { StatsCounters } from "../stats.ts";
import type { WebSocketEngine } from "../websocket/websocket-engine.ts";
import type { BlockedOutputRule } from "./blocked-output.ts";
import type { ErrorResponse } from "./error-responses.ts";
import type { CachedDateHeader } from "./http-date.ts";
import type { WorkerSlot } from "./worker-table.ts";
import type { YoungCollection } from "./young-collection.ts";

/** What the application gives the engine: called once per request with its exchange. */
export type Handler = (exchange: Exchange) => void | Promise<void>;

/**
 * Decides, after the head of a request with a body, whether the handler streams that body
 * (`exchange.bodyStream()`) instead of receiving it buffered (`exchange.body`).
 */
export type StreamBodies = (exchange: Exchange) => boolean;

/** The server-wide state every connection shares. */
export interface EngineContext {
  readonly limits: Limits;
  readonly stats: StatsCounters;
  readonly handler: Handler;
  /** Which requests stream their body; null when none does (every body is buffered). */
  readonly streamBodies: StreamBodies | null;
  readonly date: CachedDateHeader;
  readonly errorResponses: Readonly<Record<EngineErrorName, ErrorResponse>>;
  /** Coarse monotonic milliseconds, advanced by the sweep. */
  now: number;
  /** Set by `stop()`: responses close their connections. */
  stopping: boolean;
  /** A worker for a new request, or undefined when the request must wait in the queue. */
  takeWorker(): WorkerSlot | undefined;
  /** Queues a connection for a worker; false when the queue is full. */
  enqueueRequest(slot: number): boolean;
  /** Queues a connection that gave its worker back and wants one again (always fits). */
  enqueueReacquire(slot: number): void;
  /** Removes a connection from both queues. */
  leaveQueues(slot: number): void;
  /** Returns a worker: handed to the first waiter, or to the free list. */
  giveWorker(worker: WorkerSlot): void;
  /** A connection slot became free. */
  connectionClosed(slot: number): void;
  /** The connection in `slot` waits for a request and owes nothing (reclaimable when full). */
  connectionIdle(slot: number): void;
  /** The connection in `slot` started a request (or closed): it is not idle. */
  connectionBusy(slot: number): void;
  /** Which connections hold workers while their output is blocked. */
  readonly blockedOutput: BlockedOutputRule;
  /** Counts dispatched requests and keeps the young garbage of request bursts bounded. */
  readonly youngCollection: YoungCollection;
  /** Closes the connection stalled longest when blocked output holds more than its share. */
  reclaimBlockedWorker(): void;
  /** WebSocket message buffers, counters and the per-turn flush. */
  readonly webSockets: WebSocketEngine;
}
