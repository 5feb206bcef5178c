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
 * Waking is fair: one sweep goes round the listeners, `listenersWokenPerTurn` a turn, and a
 * `notify()` during a sweep does not send it back to the start. The sweep goes on from where it
 * stopped, wrapping round, until every listener has been woken once since the last `notify()`,
 * so however often producers notify, each listener is woken within
 * `ceil(size / listenersWokenPerTurn) + 1` turns of every notification.
 *
 * @example
 * const progress = new Notifier({ capacity: 10_000 });
 * progress.notify(); // every waiting continuation takes its next step
 */
export class Notifier {
  readonly capacity: number;
  /** Each listener with the number of the `notify()` it was last woken for (or added after). */
  readonly #listeners = new Map<NotifierListener, number>();
  #notifications = 0;
  /** Listeners not woken since the last `notify()`. */
  #owed = 0;
  /** The sweep's place among the listeners; a finished iterator starts again from the first. */
  #sweep: MapIterator<[NotifierListener, number]> | null = null;
  #sweeping = false;
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

  /**
   * Registers `listener`; false when the notifier is full. It is woken by the next `notify()`,
   * not by one already under way (it was not waiting yet when that one came).
   */
  add(listener: NotifierListener): boolean {
    if (this.#listeners.has(listener)) return true;
    if (this.#listeners.size >= this.capacity) return false;
    this.#listeners.set(listener, this.#notifications);
    return true;
  }

  /** Unregisters `listener`. */
  remove(listener: NotifierListener): void {
    const wokenFor = this.#listeners.get(listener);
    if (wokenFor === undefined) return;
    this.#listeners.delete(listener);
    if (wokenFor < this.#notifications) this.#owed--;
  }

  /**
   * Wakes every registered listener: `listenersWokenPerTurn` now, the rest at the next turns.
   * During a sweep it wakes none at once: the sweep goes on and wakes each listener once more.
   */
  notify(): void {
    this.#notifications++;
    this.#owed = this.#listeners.size;
    if (this.#sweeping || this.#wakeScheduled) return;
    this.#wakeSome();
  }

  #wakeSome(): void {
    let woken = 0;
    let skipped = 0;
    this.#sweeping = true;
    try {
      while (this.#owed > 0 && woken < listenersWokenPerTurn) {
        let next = this.#sweep?.next();
        if (next === undefined || next.done === true) {
          this.#sweep = this.#listeners.entries();
          next = this.#sweep.next();
          if (next.done === true) {
            this.#owed = 0;
            break;
          }
        }
        const [listener, wokenFor] = next.value;
        // Woken already for the latest notify(): a listener added since, or one the sweep passed.
        if (wokenFor === this.#notifications) {
          // A whole round found none owed: the count is off, and nobody is left to wake.
          if (++skipped > this.#listeners.size) {
            this.#owed = 0;
            break;
          }
          continue;
        }
        skipped = 0;
        this.#listeners.set(listener, this.#notifications);
        this.#owed--;
        woken++;
        listener.wake();
      }
    } finally {
      this.#sweeping = false;
    }
    if (this.#owed <= 0 || this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    setImmediate(this.#wakeMore);
  }
}
