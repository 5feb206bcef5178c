/** A pending timer of an `Io`. */
export interface IoTimer {
  /** Cancels the timer; nothing happens if it already fired. */
  cancel(): void;
}

/**
 * Everything time- and chance-dependent the App uses, given at construction: the monotonic and
 * wall clocks, timers and randomness. `systemIo` is the real one; `ManualIo` lets tests move time.
 */
export interface Io {
  /** Monotonic milliseconds, for durations and deadlines. */
  monotonicNow(): number;
  /** Wall-clock milliseconds since the epoch, for expiry dates. */
  wallNow(): number;
  /** Runs `callback` once after `milliseconds`. */
  setTimer(milliseconds: number, callback: () => void): IoTimer;
  /** Fills `target` with cryptographically strong random bytes and returns it. */
  randomBytes(target: Uint8Array): Uint8Array;
}

/**
 * The system's clocks, timers and `crypto.getRandomValues`.
 *
 * @example
 * new App({ shared: {}, io: systemIo });
 */
export const systemIo: Io = Object.freeze({
  monotonicNow: () => performance.now(),
  wallNow: () => Date.now(),
  setTimer(milliseconds: number, callback: () => void): IoTimer {
    const handle = setTimeout(callback, milliseconds);
    return { cancel: () => clearTimeout(handle) };
  },
  randomBytes: (target: Uint8Array) => crypto.getRandomValues(target),
});

interface ManualTimer {
  readonly dueAt: number;
  readonly order: number;
  readonly callback: () => void;
  cancelled: boolean;
}

/**
 * An `Io` whose clocks move only when told: `advance(ms)` moves both clocks and fires the timers
 * that fall due, in order. Randomness stays real unless a `randomBytes` is given.
 *
 * @example
 * const io = new ManualIo();
 * const app = new App({ shared: {}, io });
 * io.advance(500); // fires ctx.sleep(500) and any expiry due by then
 */
export class ManualIo implements Io {
  #monotonic: number;
  #wall: number;
  #order = 0;
  #timers: ManualTimer[] = [];
  readonly #random: (target: Uint8Array) => Uint8Array;

  constructor(
    options: {
      readonly wallStartMs?: number;
      readonly randomBytes?: (target: Uint8Array) => Uint8Array;
    } = {},
  ) {
    this.#monotonic = 0;
    this.#wall = options.wallStartMs ?? Date.UTC(2026, 0, 1);
    this.#random = options.randomBytes ?? ((target) => crypto.getRandomValues(target));
  }

  monotonicNow(): number {
    return this.#monotonic;
  }

  wallNow(): number {
    return this.#wall;
  }

  setTimer(milliseconds: number, callback: () => void): IoTimer {
    const timer: ManualTimer = {
      dueAt: this.#monotonic + Math.max(0, milliseconds),
      order: this.#order++,
      callback,
      cancelled: false,
    };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  randomBytes(target: Uint8Array): Uint8Array {
    return this.#random(target);
  }

  /** Timers waiting to fire. */
  get pendingTimers(): number {
    return this.#timers.filter((timer) => !timer.cancelled).length;
  }

  /** Moves both clocks forward by `milliseconds`, firing every timer that falls due, in order. */
  advance(milliseconds: number): void {
    if (!Number.isFinite(milliseconds) || milliseconds < 0) {
      throw new RangeError("corral: advance() takes a finite number of milliseconds >= 0");
    }
    const target = this.#monotonic + milliseconds;
    for (;;) {
      const due = this.#timers
        .filter((timer) => !timer.cancelled && timer.dueAt <= target)
        .sort((a, b) => a.dueAt - b.dueAt || a.order - b.order)[0];
      if (due === undefined) break;
      this.#wall += due.dueAt - this.#monotonic;
      this.#monotonic = due.dueAt;
      due.cancelled = true;
      this.#timers = this.#timers.filter((timer) => timer !== due);
      due.callback();
    }
    this.#wall += target - this.#monotonic;
    this.#monotonic = target;
    this.#timers = this.#timers.filter((timer) => !timer.cancelled);
  }
}
