import type { Limits } from "../limits.ts";
import type { StatsCounters } from "../stats.ts";
import { StalledClients } from "./stalled-clients.ts";

/** An upload's first second is never judged: its client may still be starting up. */
export const uploadGraceMs = 1_000;

/**
 * The rule for requests that hold a worker while they wait for more of their body: read whole
 * into the worker's storage before the handler runs, or streamed to a handler that waits for the
 * next piece (`streamBodies`). A streamed body's deadline counts from the last progress, and a
 * whole body has `bodyDeadlineMs` (30 s) to come, so clients that send a byte now and then keep
 * their workers for as long as that: 64 of them held every worker of an App while everyone else
 * got 503 at `requestDeadlineMs`. While any request waits for a worker, such uploads may hold at
 * most `slowUploadWorkersPercent` of the workers; past that share, the slow one that has waited
 * longest since its last bytes is answered 408 and closed (`stats().slowUploadCloses`), and its
 * worker goes to the waiting request once it is free.
 *
 * Slow means behind `minUploadBytesPerSecond` after a first second of grace: an upload that
 * moves faster is never closed, so a burst of real uploads (which wait on their clients most of
 * the time) is not cut down one by one for the uploads queued behind it. A read that waits only
 * for the next turn (chunked decoding stopped to let the others run) waits on the engine and is
 * not counted at all.
 */
export class SlowUploadRule extends StalledClients {
  readonly #minBytesPerSecond: number;
  /** When each slot's body began, and the body bytes it had when it last began to wait. */
  readonly #began: Float64Array;
  readonly #bytes: Float64Array;

  constructor(limits: Limits, stats: StatsCounters) {
    super(limits.maxConnections, limits.workers, limits.slowUploadWorkersPercent, (holders) => {
      stats.workersHeldBySlowUploads = holders;
    });
    this.#minBytesPerSecond = limits.minUploadBytesPerSecond;
    this.#began = new Float64Array(limits.maxConnections);
    this.#bytes = new Float64Array(limits.maxConnections);
  }

  /** The request in `slot` begins to read its body at `now` (ms). */
  bodyBegan(slot: number, now: number): void {
    this.#began[slot] = now;
    this.#bytes[slot] = 0;
  }

  /** The upload in `slot` waits on its client with `bytes` of body so far, or no longer does. */
  awaiting(slot: number, waiting: boolean, bytes: number): void {
    this.#bytes[slot] = bytes;
    this.setHolding(slot, waiting);
  }

  /**
   * The slow upload to close at `now` because the waiting ones hold more than their share while
   * `waiting` requests wait for a worker, or -1 when none must go.
   */
  slowToClose(waiting: number, now: number): number {
    if (!this.overShare(waiting)) return -1;
    const holders = this.holders;
    for (let slot = holders.first; slot >= 0; slot = holders.nextOf(slot)) {
      if (this.isSlow(slot, now)) return slot;
    }
    return -1;
  }

  /** Whether the upload in `slot` is behind the minimum rate at `now`, its grace over. */
  isSlow(slot: number, now: number): boolean {
    const judgedMs = now - this.#began[slot]! - uploadGraceMs;
    return judgedMs >= 0 && this.#bytes[slot]! * 1000 < this.#minBytesPerSecond * judgedMs;
  }
}
