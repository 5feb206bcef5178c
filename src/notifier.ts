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

  /** Wakes every registered listener. */
  notify(): void {
    this.#notifications++;
    for (const listener of this.#listeners) listener.wake();
  }
}
