import { SlotQueue } from "./slot-queue.ts";

/** A head still arriving this long after it began is slow: reclaimable when slots run out. */
export const slowHeadMs = 1_000;

/**
 * Connections whose request head did not come whole in its first socket chunk, the one whose
 * head began longest ago first. A client's head takes one packet, or a few in a row; one that
 * trickles a byte at a time (slowloris) kept its slot until `headerDeadlineMs` (10 s), so 1,024
 * such connections took every slot and a new client got the canned 503 all that time. When every
 * slot is taken and none is idle, the connection whose head has been arriving longest, if for at
 * least `slowHeadMs`, is answered 408 and closed to admit the new one.
 */
export class SlowHeads {
  readonly #queue: SlotQueue;
  readonly #since: Float64Array;

  constructor(maxConnections: number) {
    this.#queue = new SlotQueue(maxConnections);
    this.#since = new Float64Array(maxConnections);
  }

  /** The head of `slot` did not come whole in its first chunk (`now`, ms, when it began). */
  began(slot: number, now: number): void {
    if (this.#queue.has(slot)) return;
    this.#since[slot] = now;
    this.#queue.push(slot);
  }

  /** The head of `slot` is complete, or its connection closed. */
  ended(slot: number): void {
    this.#queue.remove(slot);
  }

  /** The slot whose head began longest ago, if at least `slowHeadMs` before `now`; else -1. */
  oldest(now: number): number {
    const slot = this.#queue.first;
    return slot >= 0 && now - this.#since[slot]! >= slowHeadMs ? slot : -1;
  }
}
