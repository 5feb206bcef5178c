import { DatabaseBusyError } from "./world-database.ts";

/** The bounds of a `WaitBound`. */
export interface WaitBoundOptions {
  /** Requests using the database at once; more wait. */
  readonly maxActive: number;
  /** Requests waiting for their turn; more are refused at once. */
  readonly maxWaiting: number;
  /** How long one request may wait for its turn before it is refused. */
  readonly maxWaitMs: number;
}

/**
 * Bounds the requests that use a pooled database at once, and those waiting for their turn, in
 * count and in time. `Bun.sql` queues queries without limit when every pooled connection is busy;
 * in front of it this makes a slow or saturated database answer `DatabaseBusyError` (503 with
 * `Retry-After`) instead of holding a server worker in a queue without end. Waiters are served
 * oldest first.
 */
export class WaitBound {
  readonly #options: WaitBoundOptions;
  #active = 0;
  readonly #waiting: Array<{ resolve: () => void; timer: ReturnType<typeof setTimeout> }> = [];
  #head = 0;
  /** Requests refused because the wait queue was full, or their wait ran out. */
  refused = 0;

  constructor(options: WaitBoundOptions) {
    for (const [name, value] of Object.entries(options)) {
      if (!Number.isInteger(value) || value < (name === "maxActive" ? 1 : 0)) {
        throw new RangeError(`WaitBound: ${name} must be a whole number, got ${value}`);
      }
    }
    this.#options = options;
  }

  /** Requests holding a turn now. */
  get active(): number {
    return this.#active;
  }

  /** Requests waiting for a turn now. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /** Runs `work` in a turn: at once when one is free, after a bounded wait, or not at all. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active < this.#options.maxActive && this.waiting === 0) {
      this.#active++;
    } else {
      await this.#wait();
    }
    try {
      return await work();
    } finally {
      this.#leave();
    }
  }

  #wait(): Promise<void> {
    if (this.waiting >= this.#options.maxWaiting) {
      this.refused++;
      return Promise.reject(new DatabaseBusyError("the database is busy: too many requests wait"));
    }
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const entry = {
      resolve,
      timer: setTimeout(() => {
        const index = this.#waiting.indexOf(entry, this.#head);
        if (index < 0) return;
        this.#waiting.splice(index, 1);
        this.refused++;
        reject(new DatabaseBusyError("the database is busy: the wait for it ran out"));
      }, this.#options.maxWaitMs),
    };
    this.#waiting.push(entry);
    return promise;
  }

  #leave(): void {
    const next = this.#waiting[this.#head];
    if (next === undefined) {
      this.#active--;
      return;
    }
    // The turn passes straight to the oldest waiter: `active` stays the same.
    this.#waiting[this.#head++] = undefined as never;
    if (this.#head > 1024 && this.#head * 2 > this.#waiting.length) {
      this.#waiting.splice(0, this.#head);
      this.#head = 0;
    }
    clearTimeout(next.timer);
    next.resolve();
  }
}
