import type { Limits } from "../limits.ts";
import type { StatsCounters } from "../stats.ts";
import { SlotQueue } from "./slot-queue.ts";

/**
 * The rule for connections whose output is blocked (the client does not read what was sent):
 *
 * 1. A connection with blocked output dispatches none of its further requests (the connection
 *    checks `output.blocked` before reading the next head), and every request is dispatched only
 *    with room for its whole response head in the output, so a finished response never waits in
 *    its worker for room.
 * 2. Only a staged body too large for the output buffer, or a stream's flush, keeps a worker
 *    while the output is blocked. Those connections are listed here, the one stalled longest
 *    first (progress moves a connection to the back).
 * 3. While any request waits for a worker, blocked connections may hold at most
 *    `blockedOutputWorkersPercent` of the workers; past that share, the one stalled longest is
 *    closed (`stats().blockedOutputCloses`) and its worker goes to the waiting request.
 *
 * So a client that stops reading slows only itself, and a crowd of them cannot make others wait.
 */
export class BlockedOutputRule {
  readonly #holders: SlotQueue;
  readonly #share: number;
  readonly #stats: StatsCounters;

  constructor(limits: Limits, stats: StatsCounters) {
    this.#holders = new SlotQueue(limits.maxConnections);
    this.#share = Math.floor((limits.workers * limits.blockedOutputWorkersPercent) / 100);
    this.#stats = stats;
  }

  /** The connection in `slot` holds a worker while its output is blocked, or no longer does. */
  setHolding(slot: number, holding: boolean): void {
    if (holding) this.#holders.push(slot);
    else this.#holders.remove(slot);
    this.#stats.workersHeldByBlockedOutput = this.#holders.length;
  }

  /** A holder's write made progress: it is no longer the one stalled longest. */
  progressed(slot: number): void {
    if (!this.#holders.has(slot)) return;
    this.#holders.remove(slot);
    this.#holders.push(slot);
  }

  /**
   * The connection to close because blocked output holds more than its share of the workers
   * while `waiting` requests wait for one, or -1 when none must go.
   */
  connectionToClose(waiting: number): number {
    if (waiting === 0 || this.#holders.length <= this.#share) return -1;
    return this.#holders.first;
  }
}
