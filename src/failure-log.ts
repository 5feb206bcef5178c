import { isatty } from "node:tty";
import type { Io, IoTimer } from "./io.ts";
import { writerSink } from "./writer-sink.ts";

/**
 * Where the App reports handler errors: any object with an `error` method, such as `console`
 * (the default). Each report is one call: a line naming the request, then the error itself, so
 * that `console.error` prints its stack. With `console`, when stderr is not a terminal, the App
 * writes what `console.error` would print through a non-blocking writer (see `ReportWriter`).
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
    this.#log = log === console ? consoleLog() : log;
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

/**
 * Bytes of failure reports that may wait for stderr (1 MiB): more are dropped, counted, and the
 * count is written once stderr takes text again.
 */
export const maxWaitingReportBytes = 1024 * 1024;

/**
 * Failure reports written to `sink` as `console.error` prints them (strings as they are, other
 * values through `Bun.inspect`: an error with its stack), bounded: `console.error` is a blocking
 * `write()` on a pipe, so a log reader 64 KiB behind (or one that never reads) put the whole
 * server to sleep in the kernel at its next failure. A report is handed to the sink at once when
 * nothing is waiting; while the sink is busy (its promise pending), reports wait, up to
 * `maxWaitingBytes` (UTF-8), and go out together when it is done. Reports past it, and one longer
 * than it, are dropped and counted, and the count is written after the next batch.
 *
 * @example
 * const texts: string[] = [];
 * const reports = new ReportWriter((text) => void texts.push(text), 1024 * 1024);
 * reports.error("corral: GET / answered 500 after an error:", new Error("boom"));
 */
export class ReportWriter implements AppLog {
  readonly #sink: (text: string) => void | Promise<void>;
  readonly #maxWaitingBytes: number;
  #waiting: string[] = [];
  #waitingBytes = 0;
  #writing = false;
  #dropped = 0;

  constructor(sink: (text: string) => void | Promise<void>, maxWaitingBytes: number) {
    this.#sink = sink;
    this.#maxWaitingBytes = maxWaitingBytes;
  }

  /** Writes `values` as one report (`console.error`'s text), or drops and counts it. */
  error(...values: unknown[]): void {
    const text = `${values.map(consoleText).join(" ")}\n`;
    const bytes = Buffer.byteLength(text);
    if (this.#waitingBytes + bytes > this.#maxWaitingBytes) {
      this.#dropped++;
      return;
    }
    this.#waiting.push(text);
    this.#waitingBytes += bytes;
    if (!this.#writing) this.#write();
  }

  #write(): void {
    let text = this.#waiting.join("");
    this.#waiting = [];
    this.#waitingBytes = 0;
    if (this.#dropped > 0) {
      text +=
        `corral: ${this.#dropped} failure reports were dropped: stderr was not read fast enough ` +
        `(at most ${this.#maxWaitingBytes} bytes of reports wait for it)\n`;
      this.#dropped = 0;
    }
    let pending: void | Promise<void>;
    try {
      pending = this.#sink(text);
    } catch {
      // stderr is gone (EPIPE): there is nowhere left to report to.
      return;
    }
    if (!(pending instanceof Promise)) return;
    this.#writing = true;
    const next = () => {
      this.#writing = false;
      if (this.#waiting.length > 0 || this.#dropped > 0) this.#write();
    };
    pending.then(next, next);
  }
}

/** A value as `console.error` prints it where colours are off (not on a terminal). */
function consoleText(value: unknown): string {
  return typeof value === "string" ? value : Bun.inspect(value);
}

/** `console.error` as this module found it; a replacement (a test's spy, say) is called instead. */
const consoleError = console.error;
const consoleErrorIsBuiltIn = String(consoleError).includes("[native code]");
/** The one writer of every App's reports to stderr, made for the first report. */
let stderrReports: ReportWriter | undefined;

/**
 * The App's default log, `console`: on a terminal it is `console` itself (with its colours);
 * otherwise (a pipe, a file, a socket) reports go through one `ReportWriter` to stderr, unless
 * `console.error` was replaced, then they go to the replacement, as before.
 */
function consoleLog(): AppLog {
  if (isatty(2)) return console;
  return {
    error(...values) {
      if (console.error !== consoleError || !consoleErrorIsBuiltIn) {
        console.error(...values);
        return;
      }
      stderrReports ??= new ReportWriter(writerSink(Bun.stderr.writer()), maxWaitingReportBytes);
      stderrReports.error(...values);
    },
  };
}
