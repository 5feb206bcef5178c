import type { Io, IoTimer } from "./io.ts";

/**
 * Where the App reports handler errors: any object with an `error` method, such as `console`
 * (the default). Each report is one call: a line naming the request, then the error itself, so
 * that `console.error` prints its stack.
 *
 * @example
 * const lines: string[] = [];
 * const app = new App({ shared: {}, log: { error: (line, error) => lines.push(`${line} ${error}`) } });
 */
export interface AppLog {
  error(...values: unknown[]): void;
}

/** The limit of the App's own failure reports. */
export interface LogLimits {
  /**
   * Full reports (a line and the error with its stack) per kind of failure (status and error
   * name) per second; more of that kind are counted and summarised in one line when the second
   * ends. Whole number >= 1.
   */
  readonly failureReportsPerSecond: number;
}

/** Defaults of `LogLimits`. */
export const defaultLogLimits: LogLimits = Object.freeze({ failureReportsPerSecond: 10 });

/** Kinds of failure told apart in one second; failures of further kinds share one count. */
const maxKindsPerWindow = 32;
const otherKinds = "other kinds";
const windowMs = 1000;

/**
 * Failure reports, bounded: each kind of failure is logged in full up to the limit in a second,
 * and the rest of that second's failures of that kind are counted and summarised in one line.
 * A flood of refused requests (a full queue answering 503, a database gone) would otherwise write
 * a stack for every request: a log that grows with the attacker's rate, and time spent writing it
 * taken from the requests still served. Nothing is lost: every failure is in a report or a
 * summary's count, and in `stats().handlerFailures`.
 */
export class FailureLog {
  readonly #log: AppLog | null;
  readonly #io: Io;
  readonly #limit: number;
  #windowStart = Number.NEGATIVE_INFINITY;
  /** Reports made in this window, by kind (bounded by `maxKindsPerWindow`). */
  readonly #logged = new Map<string, number>();
  /** Failures counted, not logged, in this window, by kind. */
  readonly #suppressed = new Map<string, number>();
  #summaryTimer: IoTimer | undefined;

  constructor(log: AppLog | null, io: Io, limits: LogLimits) {
    this.#log = log;
    this.#io = io;
    this.#limit = limits.failureReportsPerSecond;
  }

  /** Reports a failure of `kind` (`line` then `error`), or counts it past the limit. */
  report(kind: string, line: string, error: unknown): void {
    const log = this.#log;
    if (log === null) return;
    const now = this.#io.monotonicNow();
    if (now - this.#windowStart >= windowMs) this.#startWindow(now);
    let key = kind;
    if (!this.#logged.has(key) && this.#logged.size >= maxKindsPerWindow) key = otherKinds;
    const logged = this.#logged.get(key) ?? 0;
    if (logged < this.#limit) {
      this.#logged.set(key, logged + 1);
      log.error(line, error);
      return;
    }
    this.#suppressed.set(key, (this.#suppressed.get(key) ?? 0) + 1);
    this.#summaryTimer ??= this.#io.setTimer(this.#windowStart + windowMs - now, () =>
      this.#summarise(),
    );
  }

  /** Writes the summaries of the window now (the App stops, say) and starts a new one. */
  flush(): void {
    this.#summarise();
  }

  #startWindow(now: number): void {
    this.#summarise();
    this.#windowStart = now;
  }

  #summarise(): void {
    // Also when a report starts a new window before the timer of the last one fired.
    this.#summaryTimer?.cancel();
    this.#summaryTimer = undefined;
    const log = this.#log;
    for (const [kind, count] of this.#suppressed) {
      log?.error(
        `corral: ${count} more failures (${kind}) in the last second were counted, not logged ` +
          `one by one (failureReportsPerSecond: ${this.#limit})`,
      );
    }
    this.#suppressed.clear();
    this.#logged.clear();
    this.#windowStart = Number.NEGATIVE_INFINITY;
  }
}

/** The kind a failure is counted under: the answer's status and the error's name. */
export function failureKind(status: number | string, error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  return `${status} after ${name}`;
}
