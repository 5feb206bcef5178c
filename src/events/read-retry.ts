import type { Notifier } from "../notifier.ts";

/** The first retry after a failed read, in ms; each failure in a row doubles it. */
const firstReadRetryMs = 25;
/** The longest wait between retries of a failed read, in ms. */
const maxReadRetryMs = 1000;

const retries = new WeakMap<Notifier, ReadRetry>();

/**
 * Wakes a channel's streams again after a read of the shared store failed because it was slow or
 * busy (nothing else would: the event was published, and its notification already came). One
 * timer per channel, whatever the number of streams: `firstReadRetryMs` after a failure,
 * doubling while the reads keep failing, up to `maxReadRetryMs`; a read that succeeds starts
 * again from `firstReadRetryMs`. Streams that are up to date can tell a retry's wake from a
 * producer's (`news`) and skip their read, so a retry costs a read of the streams that failed.
 *
 * @example
 * const retry = ReadRetry.of(channel.notifier);
 * try { read = await channel.readAfter(cursor, 64); retry.succeeded(); }
 * catch { retry.failed(); }
 */
export class ReadRetry {
  readonly #notifier: Notifier;
  #delayMs = firstReadRetryMs;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #retries = 0;
  readonly #retry = () => {
    this.#timer = undefined;
    this.#retries++;
    this.#notifier.notify();
  };

  private constructor(notifier: Notifier) {
    this.#notifier = notifier;
  }

  /**
   * The retry of the streams woken by `notifier` (one per notifier).
   *
   * @example
   * const retry = ReadRetry.of(channel.notifier);
   */
  static of(notifier: Notifier): ReadRetry {
    let retry = retries.get(notifier);
    if (retry === undefined) {
      retry = new ReadRetry(notifier);
      retries.set(notifier, retry);
    }
    return retry;
  }

  /**
   * The notifications not sent by this retry: when it is unchanged since a stream's last read,
   * a wake was only a retry, and a stream whose read did not fail has nothing new to read.
   *
   * @example
   * const before = retry.news;
   */
  get news(): number {
    return this.#notifier.notifications - this.#retries;
  }

  /**
   * A read failed for a reason that passes (slow or busy): wake the streams after the backoff,
   * unless a retry is already due.
   *
   * @example
   * retry.failed();
   */
  failed(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(this.#retry, this.#delayMs);
    this.#timer.unref();
    this.#delayMs = Math.min(this.#delayMs * 2, maxReadRetryMs);
  }

  /**
   * A read succeeded: the next failure is retried after `firstReadRetryMs` again.
   *
   * @example
   * retry.succeeded();
   */
  succeeded(): void {
    this.#delayMs = firstReadRetryMs;
  }
}
