import { DatabaseBusyError } from "./world-database.ts";

/** The bounds of a `WaitBound`. */
export interface WaitBoundOptions {
  /** Requests using the database at once; more wait. */
  readonly maxActive: number;
  /** Requests waiting for their turn; more are refused at once. */
  readonly maxWaiting: number;
  /**
   * How long one request may wait for its turn before it is refused. Checked by one sweep every
   * quarter of it, so a wait ends between this and 1.25 times this.
   */
  readonly maxWaitMs: number;
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  readonly since: number;
}

/**
 * Bounds the requests that use a pooled database at once, and those waiting for their turn, in
 * count and in time. `Bun.sql` queues queries without limit when every pooled connection is busy;
 * in front of it this makes a slow or saturated database answer `DatabaseBusyError` (503 with
 * `Retry-After`) instead of holding requests in a queue without end. Waiters are served oldest
 * first, so the ones whose wait ran out are always at the head: one periodic sweep, running only
 * while someone waits, refuses them (no timer per request).
 */
export class WaitBound {
  readonly #options: WaitBoundOptions;
  #active = 0;
  readonly #waiting: Array<Waiter | undefined> = [];
  #head = 0;
  #sweep: ReturnType<typeof setInterval> | undefined;
  /** Requests refused because the wait queue was full, or their wait ran out. */
  refused = 0;

  constructor(options: WaitBoundOptions) {
    for (const [name, value] of Object.entries(options)) {
      if (!Number.isInteger(value) || value < (name === "maxWaiting" ? 0 : 1)) {
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
    this.#waiting.push({ resolve, reject, since: performance.now() });
    if (this.#sweep === undefined) {
      this.#sweep = setInterval(
        () => this.#refuseExpired(),
        Math.ceil(this.#options.maxWaitMs / 4),
      );
      this.#sweep.unref();
    }
    return promise;
  }

  #leave(): void {
    const next = this.#shift();
    // The turn passes straight to the oldest waiter: `active` stays the same.
    if (next === undefined) this.#active--;
    else next.resolve();
  }

  #refuseExpired(): void {
    const oldestAllowed = performance.now() - this.#options.maxWaitMs;
    while (this.#head < this.#waiting.length && this.#waiting[this.#head]!.since <= oldestAllowed) {
      this.refused++;
      this.#shift()!.reject(new DatabaseBusyError("the database is busy: the wait for it ran out"));
    }
  }

  #shift(): Waiter | undefined {
    const next = this.#waiting[this.#head];
    if (next === undefined) return undefined;
    this.#waiting[this.#head++] = undefined;
    if (this.#head === this.#waiting.length) {
      this.#waiting.length = 0;
      this.#head = 0;
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    } else if (this.#head >= 1024 && this.#head * 2 > this.#waiting.length) {
      this.#waiting.splice(0, this.#head);
      this.#head = 0;
    }
    return next;
  }
}
