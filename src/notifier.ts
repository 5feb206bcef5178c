/**
 * Listeners one turn of the event loop wakes. A waking continuation takes its step within the
 * same turn (a write the socket takes at once settles at once): 3,000 subscribers woken together
 * held the turn for 70-160 ms, and a request that came meanwhile waited that long (4-18 ms when
 * woken 64 a turn). The rest are woken at the next turns, after the I/O that waits.
 */
export const listenersWokenPerTurn = 64;

/** Something a `Notifier` can wake. */
export interface NotifierListener {
  /** Called on every `notify()` while registered. */
  wake(): void;
}

/**
 * A bounded set of listeners woken together: continuations waiting for a producer's next event.
 * Its capacity is fixed at construction; `add` refuses (returns false) when it is full, so a flood
 * of subscribers is turned away instead of growing the set.
 *
 * @example
 * const progress = new Notifier({ capacity: 10_000 });
 * progress.notify(); // every waiting continuation takes its next step
 */
export class Notifier {
  readonly capacity: number;
  readonly #listeners = new Set<NotifierListener>();
  #notifications = 0;
  /** The listeners still to wake for the last `notify()`, across turns. */
  #waking: Iterator<NotifierListener> | null = null;
  #wakeScheduled = false;
  readonly #wakeMore = () => {
    this.#wakeScheduled = false;
    this.#wakeSome();
  };

  constructor(options: { readonly capacity: number }) {
    if (!Number.isSafeInteger(options.capacity) || options.capacity < 1) {
      throw new RangeError(`corral: a notifier's capacity must be a whole number >= 1`);
    }
    this.capacity = options.capacity;
  }

  /** Listeners registered now. */
  get size(): number {
    return this.#listeners.size;
  }

  /** How many times `notify()` ran. */
  get notifications(): number {
    return this.#notifications;
  }

  /** Registers `listener`; false when the notifier is full. */
  add(listener: NotifierListener): boolean {
    if (this.#listeners.has(listener)) return true;
    if (this.#listeners.size >= this.capacity) return false;
    this.#listeners.add(listener);
    return true;
  }

  /** Unregisters `listener`. */
  remove(listener: NotifierListener): void {
    this.#listeners.delete(listener);
  }

  /**
   * Wakes every registered listener: `listenersWokenPerTurn` now, the rest at the next turns. A
   * `notify()` while some are still to wake starts over, so each listener is woken after it.
   */
  notify(): void {
    this.#notifications++;
    this.#waking = this.#listeners.values();
    this.#wakeSome();
  }

  #wakeSome(): void {
    const waking = this.#waking;
    if (waking === null) return;
    for (let woken = 0; woken < listenersWokenPerTurn; woken++) {
      const next = waking.next();
      if (next.done === true) {
        this.#waking = null;
        return;
      }
      next.value.wake();
    }
    if (this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    setImmediate(this.#wakeMore);
  }
}
