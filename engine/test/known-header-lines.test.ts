// A worker's header area remembers the lines it still holds from earlier answers, so that a line
// already in place is not copied again. Every write there must make it forget what it touched:
// a line remembered wrongly would go out as another line's bytes.
import { describe, expect, test } from "bun:test";
import { ArenaReservation } from "../src/internal/arena-reservation.ts";
import { HeaderLineCache, headerLineCacheBytes } from "../src/internal/header-line-cache.ts";
import { CachedDateHeader, cachedDateHeaderBytes } from "../src/internal/http-date.ts";
import { KnownHeaderLines } from "../src/internal/known-header-lines.ts";
import { ResponseDraft } from "../src/internal/response-draft.ts";
import { WorkerLease } from "../src/internal/worker-lease.ts";
import { WorkerScheduler } from "../src/internal/worker-scheduler.ts";
import { WorkerTable } from "../src/internal/worker-table.ts";
import { resolveLimits } from "../src/limits.ts";
import { StatsCounters } from "../src/stats.ts";

describe("KnownHeaderLines", () => {
  test("a line written where the known lines end is remembered, up to four", () => {
    const known = new KnownHeaderLines();
    expect(known.endOf(0, "A", "1")).toBe(-1);
    known.wrote(0, 6, "A", "1");
    known.wrote(6, 12, "B", "2");
    expect(known.endOf(0, "A", "1")).toBe(6);
    expect(known.endOf(6, "B", "2")).toBe(12);
    // Another name, value or offset is not the known line.
    expect(known.endOf(0, "A", "2")).toBe(-1);
    expect(known.endOf(0, "B", "2")).toBe(-1);
    expect(known.endOf(6, "A", "1")).toBe(-1);
    expect(known.endOf(3, "B", "2")).toBe(-1);
    expect(known.endOf(12, "C", "3")).toBe(-1);
    // Equal text in other strings is the same line.
    expect(known.endOf(6, ["B"].join(""), String(2))).toBe(12);
    known.wrote(12, 18, "C", "3");
    known.wrote(18, 24, "D", "4");
    known.wrote(24, 30, "E", "5");
    expect(known.endOf(18, "D", "4")).toBe(24);
    expect(known.endOf(24, "E", "5")).toBe(-1);
  });

  test("a write forgets every line from where it starts, and remembers itself", () => {
    const known = new KnownHeaderLines();
    known.wrote(0, 6, "A", "1");
    known.wrote(6, 12, "B", "2");
    known.wrote(12, 18, "C", "3");
    known.wrote(6, 14, "Bb", "22");
    expect(known.endOf(0, "A", "1")).toBe(6);
    expect(known.endOf(6, "B", "2")).toBe(-1);
    expect(known.endOf(6, "Bb", "22")).toBe(14);
    expect(known.endOf(12, "C", "3")).toBe(-1);
    known.wrote(0, 7, "Aa", "1");
    expect(known.endOf(0, "Aa", "1")).toBe(7);
    expect(known.endOf(6, "Bb", "22")).toBe(-1);
  });

  test("a write inside a known line, or past a gap, is not remembered", () => {
    const known = new KnownHeaderLines();
    known.wrote(0, 6, "A", "1");
    known.wrote(3, 9, "B", "2");
    expect(known.endOf(0, "A", "1")).toBe(-1);
    expect(known.endOf(3, "B", "2")).toBe(-1);
    known.wrote(0, 6, "A", "1");
    known.wrote(10, 16, "C", "3");
    expect(known.endOf(0, "A", "1")).toBe(6);
    expect(known.endOf(10, "C", "3")).toBe(-1);
  });

  test("forget drops every line", () => {
    const known = new KnownHeaderLines();
    known.wrote(0, 6, "A", "1");
    known.forget();
    expect(known.endOf(0, "A", "1")).toBe(-1);
  });
});

describe("the lines a draft writes on one worker, answer after answer", () => {
  const limits = resolveLimits({ workers: 1, maxConnections: 2, maxResponseHeaderBytes: 256 });
  const reservation = new ArenaReservation(
    ArenaReservation.spanOfAll([
      cachedDateHeaderBytes,
      headerLineCacheBytes,
      WorkerTable.reservedBytes(limits),
      1024,
    ]),
  );
  const date = new CachedDateHeader(
    Date.UTC(2026, 10, 29, 9, 0, 1),
    reservation.take(cachedDateHeaderBytes),
  );
  const cache = new HeaderLineCache(reservation.take(headerLineCacheBytes), reservation.whole);
  const workers = new WorkerTable(limits, reservation);
  const output = reservation.take(1024);
  const worker = workers.take()!;

  /** One answer: a reset draft on the worker, `draft` run on it, the head's header lines. */
  const answer = (lines: (draft: ResponseDraft) => void) => {
    const draft = new ResponseDraft(limits, new StatsCounters(), reservation.whole, cache);
    draft.worker = worker;
    lines(draft);
    const end = draft.writeHead(output, 0, date, "none", "default", draft.bodyLength);
    const head = Buffer.from(output.subarray(0, end)).toString("latin1");
    return head.slice(head.indexOf("GMT\r\n") + 5, -2);
  };

  test("each answer's head holds exactly its own lines", () => {
    const xy = (draft: ResponseDraft) => {
      draft.appendHeader("X", "1");
      draft.appendHeader("Y", "2");
    };
    for (let round = 0; round < 3; round++) expect(answer(xy)).toBe("X: 1\r\nY: 2\r\n");
    // A longer first line overwrites where X and Y were; X again must be written again.
    expect(answer((draft) => draft.appendHeader("Xx", "1"))).toBe("Xx: 1\r\n");
    expect(answer(xy)).toBe("X: 1\r\nY: 2\r\n");
    // Lines removed move the others down: what was known there is gone.
    const removed = answer((draft) => {
      draft.appendHeader("Long-Name", "12");
      draft.removeHeader("long-name");
      draft.appendHeader("X", "1");
      draft.appendHeader("Y", "2");
    });
    expect(removed).toBe("X: 1\r\nY: 2\r\n");
    expect(answer((draft) => draft.appendHeader("X", "9"))).toBe("X: 9\r\n");
    expect(answer(xy)).toBe("X: 1\r\nY: 2\r\n");
    // A line removed from the middle: Y moves to where Z was, and Z must not be taken as there.
    const middle = answer((draft) => {
      draft.appendHeader("X", "1");
      draft.appendHeader("Z", "3");
      draft.appendHeader("Y", "2");
      draft.removeHeader("z");
    });
    expect(middle).toBe("X: 1\r\nY: 2\r\n");
    const xz = answer((draft) => {
      draft.appendHeader("X", "1");
      draft.appendHeader("Z", "3");
    });
    expect(xz).toBe("X: 1\r\nZ: 3\r\n");
  });
});

test("lines a lease puts back on a worker are not taken for the lines it held before", async () => {
  const limits = resolveLimits({ workers: 1, maxConnections: 2 });
  const stats = new StatsCounters();
  const scheduler = new WorkerScheduler(limits, stats, () => {});
  const drafts = [0, 1].map(() => new ResponseDraft(limits, stats));
  const leases = [0, 1].map(
    (slot) =>
      new WorkerLease(
        slot,
        { draft: drafts[slot]!, workerGranted: () => {}, requestDisplaced: () => {} },
        scheduler,
      ),
  );
  scheduler.attach(leases);
  const [first, second] = leases as [WorkerLease, WorkerLease];
  const [waiting, other] = drafts as [ResponseDraft, ResponseDraft];
  const lines = (draft: ResponseDraft) =>
    Buffer.from(draft.worker!.headerLines.subarray(0, draft.headerLength)).toString("latin1");
  // The first request drafts a line and gives its worker back while it waits.
  first.request(1);
  waiting.reset();
  waiting.appendHeader("Q", "9");
  first.releaseWhileWaiting(waiting.headerLength);
  // Another request answers on the worker meanwhile, and ends.
  second.request(2);
  other.reset();
  other.appendHeader("A", "1");
  expect(lines(other)).toBe("A: 1\r\n");
  const back = first.reacquire();
  second.release();
  await back;
  expect(lines(waiting)).toBe("Q: 9\r\n");
  first.release();
  // The next answer on the worker sets A again: its bytes were overwritten by Q's.
  second.request(3);
  other.reset();
  other.appendHeader("A", "1");
  expect(lines(other)).toBe("A: 1\r\n");
});
