/** A stack of free slot indices in a typed array: taking and returning a slot allocates nothing. */
export class FreeList {
  readonly #free: Int32Array;
  #count: number;
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#free = new Int32Array(capacity);
    // Lowest indices on top, so slots are reused from the front and stay warm.
    for (let index = 0; index < capacity; index++) this.#free[index] = capacity - 1 - index;
    this.#count = capacity;
  }

  /** Slots in use. */
  get used(): number {
    return this.capacity - this.#count;
  }

  /** Slots free now. */
  get available(): number {
    return this.#count;
  }

  /** Takes a free slot, or -1 when none is left. */
  take(): number {
    if (this.#count === 0) return -1;
    return this.#free[--this.#count]!;
  }

  /** Gives a slot back. */
  give(slot: number): void {
    this.#free[this.#count++] = slot;
  }
}
