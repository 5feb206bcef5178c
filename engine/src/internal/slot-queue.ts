/**
 * A FIFO of slot indices as a doubly linked list over preallocated typed arrays: O(1) push,
 * shift and removal of any member, no allocation, and a slot is in the queue at most once.
 */
export class SlotQueue {
  readonly #next: Int32Array;
  readonly #previous: Int32Array;
  readonly #member: Uint8Array;
  #head = -1;
  #tail = -1;
  length = 0;

  constructor(slotCount: number) {
    this.#next = new Int32Array(slotCount).fill(-1);
    this.#previous = new Int32Array(slotCount).fill(-1);
    this.#member = new Uint8Array(slotCount);
  }

  /** Whether `slot` is waiting in this queue. */
  has(slot: number): boolean {
    return this.#member[slot] === 1;
  }

  /** Appends `slot` at the end. */
  push(slot: number): void {
    if (this.#member[slot] === 1) return;
    this.#member[slot] = 1;
    this.#next[slot] = -1;
    this.#previous[slot] = this.#tail;
    if (this.#tail >= 0) this.#next[this.#tail] = slot;
    else this.#head = slot;
    this.#tail = slot;
    this.length++;
  }

  /** The first slot without taking it, or -1 when empty. */
  get first(): number {
    return this.#head;
  }

  /** The slot after `slot` (a member), or -1 at the end. */
  nextOf(slot: number): number {
    return this.#next[slot]!;
  }

  /** Takes the first slot, or -1 when empty. */
  shift(): number {
    const slot = this.#head;
    if (slot >= 0) this.remove(slot);
    return slot;
  }

  /** Removes `slot` wherever it is; does nothing when it is not queued. */
  remove(slot: number): void {
    if (this.#member[slot] !== 1) return;
    const previous = this.#previous[slot]!;
    const next = this.#next[slot]!;
    if (previous >= 0) this.#next[previous] = next;
    else this.#head = next;
    if (next >= 0) this.#previous[next] = previous;
    else this.#tail = previous;
    this.#member[slot] = 0;
    this.length--;
  }
}
