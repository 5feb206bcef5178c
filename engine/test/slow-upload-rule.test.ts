import { expect, test } from "bun:test";
import { SlowUploadRule, uploadGraceMs } from "../src/internal/slow-uploads.ts";
import { defaultLimits, resolveLimits } from "../src/limits.ts";
import { StatsCounters } from "../src/stats.ts";

// An upload is slow when, after a first second of grace, it has averaged fewer than
// `minUploadBytesPerSecond` (4 KiB/s by default) since its body began. Only slow uploads past
// their share of the workers (25%) are closed, the one that has waited longest first.

function rule(overrides: Partial<typeof defaultLimits> = {}) {
  const limits = resolveLimits({ ...defaultLimits, workers: 4, maxConnections: 8, ...overrides });
  const stats = new StatsCounters();
  return { rule: new SlowUploadRule(limits, stats), stats };
}

test("minUploadBytesPerSecond is 4 KiB/s by default, judged after a second of grace", () => {
  expect([defaultLimits.minUploadBytesPerSecond, uploadGraceMs]).toEqual([4096, 1000]);
});

test("exactly at the minimum rate an upload is not slow; one byte behind it, it is", () => {
  const { rule: uploads } = rule();
  uploads.bodyBegan(0, 0);
  uploads.awaiting(0, true, 4096);
  // One second judged (two since the body began): 4,096 bytes is the minimum exactly.
  expect(uploads.isSlow(0, 2 * uploadGraceMs)).toBe(false);
  uploads.awaiting(0, true, 4095);
  expect(uploads.isSlow(0, 2 * uploadGraceMs)).toBe(true);
});

test("within its first second no upload is slow, not even one that sent nothing", () => {
  const { rule: uploads } = rule();
  uploads.bodyBegan(0, 5_000);
  uploads.awaiting(0, true, 0);
  expect(uploads.isSlow(0, 5_000 + uploadGraceMs - 1)).toBe(false);
  expect(uploads.isSlow(0, 5_000 + uploadGraceMs + 1)).toBe(true);
});

test("minUploadBytesPerSecond 0: no upload is ever slow", () => {
  const { rule: uploads } = rule({ minUploadBytesPerSecond: 0 });
  uploads.bodyBegan(0, 0);
  uploads.awaiting(0, true, 0);
  expect(uploads.isSlow(0, 60_000)).toBe(false);
});

test("past the share, the slow upload that has waited longest is closed; steady ones never are", () => {
  const { rule: uploads, stats } = rule();
  // Slots 0 and 2 steady (1 MB in 2 s), 1 and 3 trickling (10 bytes): all four wait on clients.
  for (const slot of [0, 1, 2, 3]) uploads.bodyBegan(slot, 0);
  uploads.awaiting(0, true, 1_000_000);
  uploads.awaiting(1, true, 10);
  uploads.awaiting(2, true, 1_000_000);
  uploads.awaiting(3, true, 10);
  expect(stats.workersHeldBySlowUploads).toBe(4);
  const now = 2 * uploadGraceMs;
  // Nobody waits for a worker: nobody is closed.
  expect(uploads.slowToClose(0, now)).toBe(-1);
  expect(uploads.slowToClose(1, now)).toBe(1);
  uploads.setHolding(1, false);
  expect(uploads.slowToClose(1, now)).toBe(3);
  uploads.setHolding(3, false);
  // The two holders left are still past the share (1 of 4 workers), but both are steady.
  expect(uploads.slowToClose(1, now)).toBe(-1);
});
