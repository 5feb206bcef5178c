import {
  type AnyContext,
  middleware,
  optionNames,
  type RequestOutcome,
  refuseUnknownOptions,
  writerSink,
} from "corral";
import { LogQueue, type LogQueueStats, type LogSink } from "./log-queue.ts";

const loggerOptionNames = optionNames<LoggerOptions>({
  sink: true,
  maxQueuedLines: true,
  maxQueuedBytes: true,
});

/** One request as `logger()` writes it, one JSON object per line. */
export interface RequestLogLine {
  /** When the request ended (ISO 8601). */
  readonly time: string;
  /** "error" for a 5xx or a failed stream, "warn" for an aborted or timed-out request. */
  readonly level: "info" | "warn" | "error";
  /** `ctx.locals.requestId` (see `requestId()`), or null. */
  readonly reqId: string | null;
  readonly method: string;
  /** The path without the query (which may hold secrets). */
  readonly path: string;
  /** The answer's status; null when the client left before one was decided. */
  readonly status: number | null;
  readonly durationMs: number;
  /** Request body bytes (its Content-Length). */
  readonly bytesIn: number;
  /**
   * Response body bytes: the drafted body, or what a stream wrote (after a content coding,
   * before chunk framing); null when no answer was decided (the client left first).
   */
  readonly bytesOut: number | null;
  readonly remoteAddress: string | null;
  /** How the request ended; "timeout" when a deadline of the engine ended it. */
  readonly outcome: RequestOutcome | "timeout";
}

/** Options of `logger()`. */
export interface LoggerOptions {
  /**
   * Where lines go; stdout by default, through a non-blocking writer (`Bun.stdout.writer()`):
   * a log reader that falls behind, or a pipe nobody reads, makes lines wait and drop, never the
   * server wait.
   */
  readonly sink?: LogSink;
  /** Lines that may wait for a slow sink; more are dropped and counted. 4096 by default. */
  readonly maxQueuedLines?: number;
  /**
   * Bytes of lines (UTF-8) that may wait for a slow sink; a line that would pass it is dropped and
   * counted, as is a line longer than it. 1048576 (1 MiB) by default. A line holds the path
   * whole, up to `maxRequestLineBytes` (8 KiB), so `maxQueuedLines` alone let a slow sink hold
   * 34 MB of lines.
   */
  readonly maxQueuedBytes?: number;
}

/** Defaults of `LoggerOptions`' bounds. */
const defaultMaxQueuedLines = 4096;
const defaultMaxQueuedBytes = 1024 * 1024;

interface Started {
  readonly startMs: number;
  readonly method: string;
  readonly path: string;
  readonly bytesIn: number;
  readonly remoteAddress: string | null;
  status: number | null;
  bytesOut: number | null;
}

/** One stdout writer for every logger of the process, made for the first line. */
let stdoutWriter: LogSink | undefined;

const stdoutSink: LogSink = (text) => {
  stdoutWriter ??= writerSink(Bun.stdout.writer());
  return stdoutWriter(text);
};

/**
 * One JSON line per request (see `RequestLogLine`), aborted and timed-out requests included,
 * written from the `cleanup` hook once the request is over. The request never waits for the
 * sink: lines queue (bounded in lines and bytes) and go out after the current turn; `stats()`
 * counts those dropped.
 * `use()` it first, so that its line covers every other middleware's answer.
 *
 * @example
 * const log = logger();
 * const app = new App({ shared: {} }).use(requestId()).use(log);
 * log.stats().dropped; // 0
 */
export function logger(options: LoggerOptions = {}) {
  refuseUnknownOptions(options, loggerOptionNames, "logger()");
  const queue = new LogQueue(options.sink ?? stdoutSink, {
    maxQueuedLines: options.maxQueuedLines ?? defaultMaxQueuedLines,
    maxQueuedBytes: options.maxQueuedBytes ?? defaultMaxQueuedBytes,
  });
  const started = new WeakMap<object, Started>();
  const hooks = middleware({
    before(ctx) {
      const length = Number(ctx.request.header("content-length") ?? 0);
      started.set(ctx, {
        startMs: performance.now(),
        method: ctx.request.method,
        path: ctx.request.path,
        bytesIn: Number.isSafeInteger(length) ? length : 0,
        remoteAddress: ctx.request.remoteAddress?.address ?? null,
        status: null,
        bytesOut: null,
      });
    },
    after(ctx) {
      const entry = started.get(ctx);
      if (entry === undefined) return;
      entry.status = ctx.response.status;
      entry.bytesOut = ctx.response.streaming ? null : ctx.response.body.length;
    },
    cleanup(ctx, outcome) {
      const entry = started.get(ctx);
      if (entry === undefined) return;
      // A stream's bytes are counted once it is over: the handler may return before its end.
      if (ctx.response.streaming) entry.bytesOut = ctx.response.bodyBytes;
      queue.push(`${JSON.stringify(lineOf(ctx, entry, outcome))}\n`);
    },
  });
  return Object.assign(hooks, {
    /** The queue's counters: lines written, dropped and waiting. */
    stats(): LogQueueStats {
      return queue.stats();
    },
  });
}

function lineOf(ctx: AnyContext, entry: Started, outcome: RequestOutcome): RequestLogLine {
  // Read only for an aborted request: reading `ctx.signal` makes the request's AbortController,
  // which cost every logged request about a microsecond for a reason that is then unused.
  const reason = outcome === "aborted" ? ctx.signal.reason : undefined;
  const timedOut =
    reason instanceof Error &&
    (reason.message.includes("deadline") || reason.message.includes("Timeout"));
  const status = outcome === "aborted" && entry.status === null ? null : entry.status;
  const failed = outcome === "error" && (status === null || status >= 500);
  return {
    time: isoTimeNow(),
    level:
      failed || (status !== null && status >= 500)
        ? "error"
        : outcome === "aborted"
          ? "warn"
          : "info",
    reqId: requestIdOf(ctx),
    method: entry.method,
    path: entry.path,
    status,
    durationMs: Math.round((performance.now() - entry.startMs) * 1000) / 1000,
    bytesIn: entry.bytesIn,
    bytesOut: entry.bytesOut,
    remoteAddress: entry.remoteAddress,
    outcome: timedOut ? "timeout" : outcome,
  };
}

/** The millisecond `isoTimeNow` last formatted, and its text. */
const lastTime = { milliseconds: -1, text: "" };

/**
 * The current time in ISO 8601 (`2026-11-27T13:49:47.123Z`), formatted once a millisecond: a
 * busy server logs dozens of requests in each, and formatting took about 2% of a logged request.
 */
function isoTimeNow(): string {
  const now = Date.now();
  if (now !== lastTime.milliseconds) {
    lastTime.milliseconds = now;
    lastTime.text = new Date(now).toISOString();
  }
  return lastTime.text;
}

function requestIdOf(ctx: AnyContext): string | null {
  const id = (ctx.locals as { requestId?: unknown }).requestId;
  return typeof id === "string" ? id : null;
}
