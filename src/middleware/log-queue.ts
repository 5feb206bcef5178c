/**
 * Where `logger()` lines go: text of one or more whole lines, each ending in "\n".
 *
 * @example
 * const sink: LogSink = (text) => Bun.write(Bun.stderr, text).then(() => {});
 */
export type LogSink = (text: string) => void | Promise<void>;

/**
 * Counters of a logger's queue.
 *
 * @example
 * const { written, dropped } = log.stats();
 */
export interface LogQueueStats {
  /** Lines handed to the sink. */
  readonly written: number;
  /** Lines dropped because `maxQueuedLines` were already waiting for a slow sink. */
  readonly dropped: number;
  /** Lines waiting now. */
  readonly queued: number;
}

/**
 * Lines waiting for a sink, at most `maxQueuedLines`: a request never waits for the log, and a
 * slow sink makes lines drop (counted), never the queue grow. Lines go out in batches after the
 * current turn of the event loop; an asynchronous sink gets the next batch once it settled.
 */
export class LogQueue {
  readonly #sink: LogSink;
  readonly #maxLines: number;
  #lines: string[] = [];
  #draining = false;
  #written = 0;
  #dropped = 0;

  constructor(sink: LogSink, maxQueuedLines: number) {
    if (!Number.isSafeInteger(maxQueuedLines) || maxQueuedLines < 1) {
      throw new TypeError(
        `corral: maxQueuedLines must be a whole number >= 1, got ${maxQueuedLines}`,
      );
    }
    this.#sink = sink;
    this.#maxLines = maxQueuedLines;
  }

  push(line: string): void {
    if (this.#lines.length >= this.#maxLines) {
      this.#dropped++;
      return;
    }
    this.#lines.push(line);
    if (!this.#draining) {
      this.#draining = true;
      setImmediate(() => void this.#drain());
    }
  }

  stats(): LogQueueStats {
    return { written: this.#written, dropped: this.#dropped, queued: this.#lines.length };
  }

  async #drain(): Promise<void> {
    try {
      while (this.#lines.length > 0) {
        const batch = this.#lines;
        this.#lines = [];
        try {
          const pending = this.#sink(batch.join(""));
          if (pending instanceof Promise) await pending;
          this.#written += batch.length;
        } catch {
          // A failing sink loses its batch, counted; the server goes on.
          this.#dropped += batch.length;
        }
      }
    } finally {
      this.#draining = false;
    }
  }
}
