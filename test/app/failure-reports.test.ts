import { describe, expect, test } from "bun:test";
import { App, defaultLogLimits, ManualIo, ServiceBusyError } from "corral";
import { FailureLog, failureKind } from "../../src/failure-log.ts";

const limit = defaultLogLimits.failureReportsPerSecond;

/** A log that keeps every call: full reports have the error as their second value. */
function recordingLog() {
  const calls: unknown[][] = [];
  return {
    log: { error: (...values: unknown[]) => void calls.push(values) },
    full: () => calls.filter((values) => values.length === 2),
    summaries: () => calls.filter((values) => values.length === 1).map((values) => values[0]),
  };
}

describe("FailureLog", () => {
  test("exactly the limit of one kind is logged in full in a second; one more is counted", () => {
    const io = new ManualIo();
    const recorded = recordingLog();
    const failures = new FailureLog(recorded.log, io, defaultLogLimits);
    for (let index = 0; index < limit; index++) failures.report("503 after X", "line", index);
    expect(recorded.full()).toHaveLength(limit);
    expect(recorded.summaries()).toEqual([]);
    failures.report("503 after X", "line", limit);
    expect(recorded.full()).toHaveLength(limit);
    // The summary comes when the second ends, with the count, not before.
    io.advance(999);
    expect(recorded.summaries()).toEqual([]);
    io.advance(1);
    expect(recorded.summaries()).toEqual([
      "corral: 1 more failures (503 after X) in the last second were counted, not logged one by one (failureReportsPerSecond: 10)",
    ]);
    expect(io.pendingTimers).toBe(0);
    // A new second logs in full again.
    failures.report("503 after X", "line", "again");
    expect(recorded.full()).toHaveLength(limit + 1);
  });

  test("another kind is still logged in full while one kind floods", () => {
    const io = new ManualIo();
    const recorded = recordingLog();
    const failures = new FailureLog(recorded.log, io, defaultLogLimits);
    for (let index = 0; index < 1000; index++) failures.report("503 after Busy", "busy", index);
    failures.report("500 after TypeError", "bug", new TypeError("a bug"));
    expect(recorded.full().at(-1)).toEqual(["bug", new TypeError("a bug")]);
    io.advance(1000);
    expect(recorded.summaries()).toEqual([
      "corral: 990 more failures (503 after Busy) in the last second were counted, not logged one by one (failureReportsPerSecond: 10)",
    ]);
  });

  test("past 32 kinds in a second, further kinds share one count", () => {
    const io = new ManualIo();
    const recorded = recordingLog();
    const failures = new FailureLog(recorded.log, io, { failureReportsPerSecond: 1 });
    for (let kind = 0; kind < 40; kind++) failures.report(`500 after Error${kind}`, "line", kind);
    // 32 kinds, then "other kinds" takes one report in full and counts the remaining 7.
    expect(recorded.full()).toHaveLength(33);
    io.advance(1000);
    expect(recorded.summaries()).toEqual([
      "corral: 7 more failures (other kinds) in the last second were counted, not logged one by one (failureReportsPerSecond: 1)",
    ]);
  });

  test("flush writes the summary of the second under way, once", () => {
    const io = new ManualIo();
    const recorded = recordingLog();
    const failures = new FailureLog(recorded.log, io, { failureReportsPerSecond: 1 });
    failures.report("500 after Error", "line", 1);
    failures.report("500 after Error", "line", 2);
    failures.flush();
    expect(recorded.summaries()).toHaveLength(1);
    io.advance(5000);
    expect(recorded.summaries()).toHaveLength(1);
  });

  test("a report after the second ended, before its timer ran, summarises that second once", () => {
    let now = 0;
    let cancelled = 0;
    const timers: (() => void)[] = [];
    const io = {
      monotonicNow: () => now,
      wallNow: () => now,
      randomBytes: (target: Uint8Array) => target,
      setTimer: (_milliseconds: number, callback: () => void) => {
        timers.push(callback);
        return { cancel: () => void cancelled++ };
      },
    };
    const recorded = recordingLog();
    const failures = new FailureLog(recorded.log, io, { failureReportsPerSecond: 1 });
    failures.report("k", "line", 1);
    failures.report("k", "line", 2);
    expect(timers).toHaveLength(1);
    // The clock passed the second and the timer has not run yet (a busy event loop).
    now = 1500;
    failures.report("k", "line", 3);
    expect(recorded.summaries()).toHaveLength(1);
    expect(recorded.full()).toHaveLength(2);
    expect(cancelled).toBe(1);
  });

  test("the kind is the status and the error's name", () => {
    expect(failureKind(503, new ServiceBusyError(64))).toBe("503 after ServiceBusyError");
    expect(failureKind(500, "a string")).toBe("500 after string");
  });
});

describe("the App's failure reports", () => {
  test("a flood of refused jobs logs the limit in full and counts the rest; stats count all", async () => {
    const io = new ManualIo();
    const recorded = recordingLog();
    const app = new App({ shared: {}, io, log: recorded.log });
    app.route("POST", "/work", () => {
      throw new ServiceBusyError(64);
    });
    app.route("GET", "/boom", () => {
      throw new TypeError("a bug");
    });
    for (let index = 0; index < 50; index++) {
      const response = await app.request("/work", { method: "POST" });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("1");
    }
    const boom = await app.request("/boom");
    expect(boom.status).toBe(500);
    expect(recorded.full()).toHaveLength(limit + 1);
    expect(recorded.full()[0]).toEqual([
      "corral: POST /work answered 503 after an error:",
      new ServiceBusyError(64),
    ]);
    expect(recorded.full().at(-1)?.[0]).toBe("corral: GET /boom answered 500 after an error:");
    io.advance(1000);
    expect(recorded.summaries()).toEqual([
      "corral: 40 more failures (503 after ServiceBusyError) in the last second were counted, not logged one by one (failureReportsPerSecond: 10)",
    ]);
    expect(app.stats().handlerFailures).toBe(51);
    await app.stop();
  });

  test("stop() writes the summary of the second under way", async () => {
    const io = new ManualIo();
    const recorded = recordingLog();
    const app = new App({
      shared: {},
      io,
      log: recorded.log,
      limits: { failureReportsPerSecond: 1 },
    });
    app.route("GET", "/boom", () => {
      throw new Error("boom");
    });
    for (let index = 0; index < 3; index++) await app.request("/boom");
    await app.stop();
    expect(recorded.full()).toHaveLength(1);
    expect(recorded.summaries()).toEqual([
      "corral: 2 more failures (500 after Error) in the last second were counted, not logged one by one (failureReportsPerSecond: 1)",
    ]);
  });

  test("failureReportsPerSecond is a whole number >= 1", () => {
    for (const value of [0, -1, 1.5, Number.NaN]) {
      expect(() => new App({ shared: {}, limits: { failureReportsPerSecond: value } })).toThrow(
        `corral: limit failureReportsPerSecond must be a whole number >= 1, got ${value}`,
      );
    }
    expect(new App({ shared: {} }).limits.failureReportsPerSecond).toBe(10);
  });
});
