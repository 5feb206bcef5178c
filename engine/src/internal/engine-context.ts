import type { EngineErrorName } from "../errors.ts";
import type { Exchange } from "../exchange.ts";
import type { Limits } from "../limits.ts";
import type { HeadLimits } from "../parser/request-head.ts";
import type { StatsCounters } from "../stats.ts";
import type { WebSocketEngine } from "../websocket/websocket-engine.ts";
import type { ErrorResponse } from "./error-responses.ts";
import type { HeaderLineCache } from "./header-line-cache.ts";
import type { CachedDateHeader } from "./http-date.ts";
import type { SlowHeads } from "./slow-heads.ts";
import type { WorkerScheduler } from "./worker-scheduler.ts";
import type { YoungCollection } from "./young-collection.ts";

/**
 * What an asynchronous handler returns: a promise, or any object whose `then` the engine calls
 * once, at once, with two callbacks, of which it must later call one, once (`onDone` when the
 * handler is done, `onFailed` when it failed). A layer that settles its own work can hand the
 * engine such an object and call back itself, one promise job sooner than through a promise.
 * `onDone` with a value (an async handler's `return new Response(…)`) is a failed handler: the
 * answer is what the exchange drafted, and that value would be lost without a word.
 */
export interface HandlerCompletion {
  then(onDone: (value?: unknown) => void, onFailed: (error: unknown) => void): unknown;
}

/**
 * What the application gives the engine: called once per request with its exchange. It drafts
 * its answer on the exchange and returns nothing, or what to await; any other value (a
 * `Response`, as Bun.serve's `fetch` returns) is a failed handler, answered 500.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler returns nothing, or what to await.
export type Handler = (exchange: Exchange) => void | HandlerCompletion;

/**
 * Decides, after the head of a request with a body, whether the handler streams that body
 * (`exchange.bodyStream()`) instead of receiving it buffered (`exchange.body`). For a request
 * without a body it is asked when the handler calls `bodyStream()` (true: an empty stream).
 */
export type StreamBodies = (exchange: Exchange) => boolean;

/**
 * Gives a request whose head is complete its dispatch key: requests of one key share their
 * fairness (see fair dispatch in docs/limits.md). Called once per request, before it asks for a
 * worker; any integer from 0 (larger ones are folded onto 1024 keys).
 */
export type DispatchKey = (exchange: Exchange) => number;

/** The server-wide state every connection shares. */
export interface EngineContext {
  readonly limits: Limits;
  readonly stats: StatsCounters;
  readonly handler: Handler;
  /** Which requests stream their body; null when none does (every body is buffered). */
  readonly streamBodies: StreamBodies | null;
  /** The head parser's limits, shared by every connection (see `admissionHeadLimits`). */
  readonly headLimits: HeadLimits;
  readonly date: CachedDateHeader;
  /** The engine's reservation (`ArenaReservation.whole`): its buffers are pieces of it, or null. */
  readonly reserved: Uint8Array | null;
  /** Header lines handlers set on answer after answer, kept encoded. */
  readonly headerLineCache: HeaderLineCache;
  readonly errorResponses: Readonly<Record<EngineErrorName, ErrorResponse>>;
  /** Coarse monotonic milliseconds, advanced by the sweep. */
  now: number;
  /**
   * `now` plus one sweep interval, kept by the sweep: where deadlines count from. `now` runs up
   * to one interval behind the real time, so a deadline counted from it would fire that early.
   */
  deadlineBase: number;
  /** Set by `stop()`: responses close their connections. */
  stopping: boolean;
  /** The one owner of the workers: connections ask it through their `WorkerLease`. */
  readonly scheduler: WorkerScheduler;
  /** Connections whose head did not come whole in its first chunk (slowloris guard). */
  readonly slowHeads: SlowHeads;
  /** WebSocket message buffers, counters and the per-turn flush. */
  readonly webSockets: WebSocketEngine;
  /** Whether a body over its limit is the handler's to answer (`BodyTooLargeError`). */
  readonly dispatchOversizedBodies: boolean;
  /** The application's dispatch keys (the App's routes); null: the path is the key. */
  readonly dispatchKey: DispatchKey | null;
  /**
   * A connection closed; `slotFree` unless an abandoned handler still holds the slot's worker
   * (then `slotFreed` follows when it settles).
   */
  connectionClosed(slot: number, slotFree: boolean): void;
  /** The slot of a closed connection is free again (its abandoned handler settled). */
  slotFreed(slot: number): void;
  /** The connection in `slot` waits for a request and owes nothing (reclaimable when full). */
  connectionIdle(slot: number): void;
  /** The connection in `slot` started a request (or closed): it is not idle. */
  connectionBusy(slot: number): void;
  /** Counts dispatched requests and keeps the young garbage of request bursts bounded. */
  readonly youngCollection: YoungCollection;
}
