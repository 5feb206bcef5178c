/**
 * Where `logger()` lines go: text of one or more whole lines, each ending in "\n". An
 * asynchronous sink gets the next batch once its promise settled, so it should settle when the
 * text is written, without blocking the event loop meanwhile.
 *
 * @example
 * const sink: LogSink = writerSink(Bun.stderr.writer()); // writerSink from "corral"
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
  /**
   * Lines dropped: `maxQueuedLines` or `maxQueuedBytes` were already waiting for a slow sink,
   * the line alone is longer than `maxQueuedBytes`, or the sink failed to take its batch.
   */
  readonly dropped: number;
  /** Lines waiting now. */
  readonly queued: number;
}

/**
 * How much may wait for a slow sink: lines and bytes (UTF-8, as written), whole numbers >= 1.
 *
 * @example
 * const limits: LogQueueLimits = { maxQueuedLines: 4096, maxQueuedBytes: 1024 * 1024 };
 */
export interface LogQueueLimits {
  readonly maxQueuedLines: number;
  readonly maxQueuedBytes: number;
}

/**
 * Lines waiting for a sink, at most `maxQueuedLines` and `maxQueuedBytes`: a request never waits
 * for the log, and a slow sink makes lines drop (counted), never the queue grow. Lines go out in
 * batches after the current turn of the event loop; an asynchronous sink gets the next batch once
 * it settled, so besides the lines waiting, only the batch being written is held.
 *
 * @example
 * const queue = new LogQueue((text) => void process.stdout.write(text), { maxQueuedLines: 4096, maxQueuedBytes: 1 << 20 });
 * queue.push('{"path":"/"}\n');
 */
export class LogQueue {
  readonly #sink: LogSink;
  readonly #maxLines: number;
  readonly #maxBytes: number;
  #lines: string[] = [];
  #bytes = 0;
  #draining = false;
  #written = 0;
  #dropped = 0;

  constructor(sink: LogSink, limits: LogQueueLimits) {
    for (const name of ["maxQueuedLines", "maxQueuedBytes"] as const) {
      const value = limits[name];
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new TypeError(`corral: ${name} must be a whole number >= 1, got ${value}`);
      }
    }
    this.#sink = sink;
    this.#maxLines = limits.maxQueuedLines;
    this.#maxBytes = limits.maxQueuedBytes;
  }

  /** Queues `line` (ending in "\n"), or drops and counts it when it does not fit. */
  push(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.#lines.length >= this.#maxLines || this.#bytes + bytes > this.#maxBytes) {
      this.#dropped++;
      return;
    }
    this.#lines.push(line);
    this.#bytes += bytes;
    if (!this.#draining) {
      this.#draining = true;
      setImmediate(() => void this.#drain());
    }
  }

  /** The counters: lines written, dropped and waiting. */
  stats(): LogQueueStats {
    return { written: this.#written, dropped: this.#dropped, queued: this.#lines.length };
  }

  async #drain(): Promise<void> {
    try {
      while (this.#lines.length > 0) {
        const batch = this.#lines;
        this.#lines = [];
        this.#bytes = 0;
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
