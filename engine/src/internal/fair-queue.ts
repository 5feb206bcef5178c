import { SlotQueue } from "./slot-queue.ts";

/**
 * Connections waiting for a worker, grouped by dispatch key (the App's route), served fairly:
 * `shift()` takes the oldest waiter of the key that holds the fewest workers now, and among keys
 * that hold as many, the key whose oldest waiter came first. With one key it is a plain FIFO.
 *
 * Everything lives in typed arrays sized at startup: per slot a link in its key's list and an
 * arrival number, per key the ends of its list, and a binary heap of the keys that have waiters,
 * ordered by (workers held, arrival of the first waiter). Every operation is O(log keys) and
 * allocates nothing, so a crowd of distinct paths costs the attacker more than the engine.
 */
export class FairQueue {
  /** Workers held per key: owned by the scheduler, read here to order the keys. */
  readonly #held: Int32Array;
  readonly #next: Int32Array;
  readonly #previous: Int32Array;
  readonly #keyOf: Int32Array;
  readonly #arrival: Float64Array;
  readonly #member: Uint8Array;
  readonly #first: Int32Array;
  readonly #last: Int32Array;
  /** Waiters per key. */
  readonly #waiting: Int32Array;
  readonly #heap: Int32Array;
  /** Position of each key in the heap, -1 when it has no waiter. */
  readonly #heapIndex: Int32Array;
  #heapSize = 0;
  /** Every waiter in arrival order, to tell when fairness served one ahead of an older one. */
  readonly #arrivalOrder: SlotQueue;
  /** Connections waiting now. */
  length = 0;

  constructor(slotCount: number, held: Int32Array) {
    const keyCount = held.length;
    this.#held = held;
    this.#next = new Int32Array(slotCount).fill(-1);
    this.#previous = new Int32Array(slotCount).fill(-1);
    this.#keyOf = new Int32Array(slotCount);
    this.#arrival = new Float64Array(slotCount);
    this.#member = new Uint8Array(slotCount);
    this.#first = new Int32Array(keyCount).fill(-1);
    this.#last = new Int32Array(keyCount).fill(-1);
    this.#waiting = new Int32Array(keyCount);
    this.#heap = new Int32Array(keyCount);
    this.#heapIndex = new Int32Array(keyCount).fill(-1);
    this.#arrivalOrder = new SlotQueue(slotCount);
  }

  /** Whether `slot` waits here. */
  has(slot: number): boolean {
    return this.#member[slot] === 1;
  }

  /** The key `slot` waits (or last waited) under. */
  keyOf(slot: number): number {
    return this.#keyOf[slot]!;
  }

  /** Waiters of `key`. */
  waitingFor(key: number): number {
    return this.#waiting[key]!;
  }

  /** Appends `slot` to the waiters of `key`; `arrival` orders waiters across keys. */
  push(slot: number, key: number, arrival: number): void {
    if (this.#member[slot] === 1) return;
    this.#member[slot] = 1;
    this.#keyOf[slot] = key;
    this.#arrival[slot] = arrival;
    this.#next[slot] = -1;
    const last = this.#last[key]!;
    this.#previous[slot] = last;
    if (last >= 0) this.#next[last] = slot;
    else this.#first[key] = slot;
    this.#last[key] = slot;
    this.#waiting[key]!++;
    this.#arrivalOrder.push(slot);
    this.length++;
    if (last < 0) this.#heapInsert(key);
  }

  /** Takes the fairest waiter (see the class comment), or -1 when none waits. */
  shift(): number {
    if (this.#heapSize === 0) return -1;
    const slot = this.#first[this.#heap[0]!]!;
    this.remove(slot);
    return slot;
  }

  /** The waiter `shift()` would take, or -1 when none waits. */
  get first(): number {
    return this.#heapSize === 0 ? -1 : this.#first[this.#heap[0]!]!;
  }

  /** The waiter that came first, whatever its key, or -1. */
  get oldest(): number {
    return this.#arrivalOrder.first;
  }

  /** The newest waiter of the key with the most waiters, or -1 (a linear scan: when full only). */
  newestOfLongest(): number {
    let best = -1;
    for (let index = 0; index < this.#heapSize; index++) {
      const key = this.#heap[index]!;
      if (best < 0 || this.#waiting[key]! > this.#waiting[best]!) best = key;
    }
    return best < 0 ? -1 : this.#last[best]!;
  }

  /** Removes `slot` wherever it waits; does nothing when it does not. */
  remove(slot: number): void {
    if (this.#member[slot] !== 1) return;
    const key = this.#keyOf[slot]!;
    const previous = this.#previous[slot]!;
    const next = this.#next[slot]!;
    if (previous >= 0) this.#next[previous] = next;
    else this.#first[key] = next;
    if (next >= 0) this.#previous[next] = previous;
    else this.#last[key] = previous;
    this.#member[slot] = 0;
    this.#waiting[key]!--;
    this.#arrivalOrder.remove(slot);
    this.length--;
    if (this.#first[key]! < 0) this.#heapRemove(key);
    else if (previous < 0) this.#heapFix(key);
  }

  /** The workers `key` holds changed: its place among the waiting keys may change. */
  heldChanged(key: number): void {
    // Nobody waiting (the usual case): no key has a place to change.
    if (this.length > 0 && this.#heapIndex[key]! >= 0) this.#heapFix(key);
  }

  /** Whether key `a` goes before key `b`. */
  #before(a: number, b: number): boolean {
    const heldA = this.#held[a]!;
    const heldB = this.#held[b]!;
    if (heldA !== heldB) return heldA < heldB;
    return this.#arrival[this.#first[a]!]! < this.#arrival[this.#first[b]!]!;
  }

  #heapInsert(key: number): void {
    const index = this.#heapSize++;
    this.#heap[index] = key;
    this.#heapIndex[key] = index;
    this.#siftUp(index);
  }

  #heapRemove(key: number): void {
    const index = this.#heapIndex[key]!;
    this.#heapIndex[key] = -1;
    const lastIndex = --this.#heapSize;
    if (index === lastIndex) return;
    const moved = this.#heap[lastIndex]!;
    this.#heap[index] = moved;
    this.#heapIndex[moved] = index;
    this.#heapFix(moved);
  }

  #heapFix(key: number): void {
    const index = this.#heapIndex[key]!;
    if (!this.#siftUp(index)) this.#siftDown(index);
  }

  /** Moves the key at `index` up while it goes before its parent; true when it moved. */
  #siftUp(index: number): boolean {
    const heap = this.#heap;
    const key = heap[index]!;
    const start = index;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex]!;
      if (!this.#before(key, parent)) break;
      heap[index] = parent;
      this.#heapIndex[parent] = index;
      index = parentIndex;
    }
    heap[index] = key;
    this.#heapIndex[key] = index;
    return index !== start;
  }

  #siftDown(index: number): void {
    const heap = this.#heap;
    const key = heap[index]!;
    const size = this.#heapSize;
    for (;;) {
      const left = index * 2 + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && this.#before(heap[right]!, heap[left]!) ? right : left;
      if (!this.#before(heap[child]!, key)) break;
      heap[index] = heap[child]!;
      this.#heapIndex[heap[index]!] = index;
      index = child;
    }
    heap[index] = key;
    this.#heapIndex[key] = index;
  }
}
