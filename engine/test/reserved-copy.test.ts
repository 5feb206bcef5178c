// Response heads are copied within the engine's reservation (one `copyWithin`, no view made): the
// 200 status line and the Date line sit side by side in it, rewritten in place each second, and
// header lines handlers set on every answer are kept encoded there.
import { describe, expect, test } from "bun:test";
import { ArenaReservation } from "../src/internal/arena-reservation.ts";
import { HeaderLineCache, headerLineCacheBytes } from "../src/internal/header-line-cache.ts";
import { CachedDateHeader, cachedDateHeaderBytes } from "../src/internal/http-date.ts";
import { copyReserved, viewOf, writeContentLengthName } from "../src/internal/reserved-copy.ts";
import { ResponseDraft } from "../src/internal/response-draft.ts";
import { WorkerTable } from "../src/internal/worker-table.ts";
import { resolveLimits } from "../src/limits.ts";
import { StatsCounters } from "../src/stats.ts";

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1");

describe("copyReserved", () => {
  const reservation = new ArenaReservation(ArenaReservation.spanOfAll([256, 256]));
  const source = reservation.take(256);
  const target = reservation.take(256);
  for (let index = 0; index < source.length; index++) source[index] = (index * 7) % 256;

  for (const length of [0, 1, 23, 24, 25, 100]) {
    test(`copies ${length} bytes within the reservation and between separate arrays alike`, () => {
      target.fill(0);
      const end = copyReserved(reservation.whole, source, 5, 5 + length, target, 9);
      expect(end).toBe(9 + length);
      expect([...target.subarray(9, 9 + length)]).toEqual([...source.subarray(5, 5 + length)]);
      // Nothing around the range is touched.
      expect(target[8]).toBe(0);
      expect(target[9 + length]).toBe(0);
      const separate = new Uint8Array(256);
      expect(copyReserved(null, source.slice(), 5, 5 + length, separate, 9)).toBe(9 + length);
      expect([...separate]).toEqual([...target]);
    });
  }

  test("writes Content-Length's name with 32-bit stores where the offset says", () => {
    target.fill(0);
    const view = viewOf(reservation.whole!);
    expect(viewOf(reservation.whole!)).toBe(view);
    expect(writeContentLengthName(view, target, 3)).toBe(19);
    expect(latin1(target.subarray(3, 19))).toBe("Content-Length: ");
    expect([target[2], target[19]]).toEqual([0, 0]);
    expect([...source.subarray(0, 4)]).toEqual([0, 7, 14, 21]);
    const separate = new Uint8Array(20);
    expect(writeContentLengthName(null, separate, 3)).toBe(19);
    expect(latin1(separate.subarray(3, 19))).toBe("Content-Length: ");
  });

  test("the reservation's pieces are views of its whole array", () => {
    const whole = reservation.whole!;
    expect(source.buffer).toBe(whole.buffer);
    expect(target.buffer).toBe(whole.buffer);
  });
});

describe("CachedDateHeader", () => {
  test("keeps the 200 status line just before the Date line", () => {
    const date = new CachedDateHeader(Date.UTC(2026, 10, 27, 3, 4, 5));
    expect(latin1(date.okHead)).toBe("HTTP/1.1 200 OK\r\nDate: Fri, 27 Nov 2026 03:04:05 GMT\r\n");
    expect(latin1(date.bytes)).toBe("Date: Fri, 27 Nov 2026 03:04:05 GMT\r\n");
    expect(date.okHead.length).toBe(cachedDateHeaderBytes);
  });

  test("rewrites the line in place, so views of it read the new second", () => {
    const storage = new Uint8Array(cachedDateHeaderBytes);
    const date = new CachedDateHeader(Date.UTC(2026, 10, 27, 3, 4, 5, 900), storage);
    const line = date.bytes;
    date.refresh(Date.UTC(2026, 10, 27, 3, 4, 5, 999));
    expect(latin1(line)).toBe("Date: Fri, 27 Nov 2026 03:04:05 GMT\r\n");
    date.refresh(Date.UTC(2026, 10, 27, 3, 4, 6));
    expect(date.bytes).toBe(line);
    expect(latin1(storage)).toBe("HTTP/1.1 200 OK\r\nDate: Fri, 27 Nov 2026 03:04:06 GMT\r\n");
  });

  test("refuses storage of another length", () => {
    expect(() => new CachedDateHeader(0, new Uint8Array(10))).toThrow(RangeError);
  });
});

describe("HeaderLineCache", () => {
  const reservation = new ArenaReservation(ArenaReservation.spanOfAll([headerLineCacheBytes, 512]));
  const storage = reservation.take(headerLineCacheBytes);
  const lines = reservation.take(512);
  const encode = (line: string, at: number) => {
    lines.set(Buffer.from(line, "latin1"), at);
    return at + line.length;
  };

  test("keeps a line encoded twice in a row, then copies it", () => {
    const cache = new HeaderLineCache(storage, reservation.whole);
    const line = "Content-Type: text/plain; charset=utf-8\r\n";
    expect(cache.copy("Content-Type", "text/plain; charset=utf-8", lines, 0)).toBe(-1);
    cache.encoded("Content-Type", "text/plain; charset=utf-8", lines, 0, encode(line, 0));
    expect(cache.copy("Content-Type", "text/plain; charset=utf-8", lines, 100)).toBe(-1);
    cache.encoded("Content-Type", "text/plain; charset=utf-8", lines, 100, encode(line, 100));
    lines.fill(0);
    const end = cache.copy("Content-Type", "text/plain; charset=utf-8", lines, 7);
    expect(end).toBe(7 + line.length);
    expect(latin1(lines.subarray(7, end))).toBe(line);
    // The same text in other strings matches too; another value does not.
    const value = ["text/plain;", "charset=utf-8"].join(" ");
    expect(cache.copy("Content-Type", value, lines, 0)).toBe(line.length);
    expect(cache.copy("Content-Type", "text/plain; charset=utf-9", lines, 0)).toBe(-1);
  });

  test("a value that changes on every answer never displaces a kept line", () => {
    const cache = new HeaderLineCache(storage, reservation.whole);
    for (let round = 0; round < 2; round++) {
      cache.encoded("Server", "corral", lines, 0, encode("Server: corral\r\n", 0));
    }
    for (let id = 0; id < 100; id++) {
      // Same lengths and first character as the kept line: the same entry.
      const value = `c${String(id % 100).padStart(5, "0")}`;
      expect(cache.copy("Server", value, lines, 0)).toBe(-1);
      cache.encoded("Server", value, lines, 0, encode(`Server: ${value}\r\n`, 0));
    }
    expect(cache.copy("Server", "corral", lines, 200)).toBe(216);
    expect(latin1(lines.subarray(200, 216))).toBe("Server: corral\r\n");
  });

  /** One answer's header line: copied when kept, else encoded and reported. */
  const draft = (cache: HeaderLineCache, name: string, value: string): boolean => {
    if (cache.copy(name, value, lines, 300) >= 0) return true;
    cache.encoded(name, value, lines, 300, encode(`${name}: ${value}\r\n`, 300));
    return false;
  };

  test("two lines of one set, set on every answer, are both kept", () => {
    // Both pick set 7 (lengths and first character): with one line a set, each displaced the
    // other and both were encoded on every answer.
    const cache = new HeaderLineCache(storage, reservation.whole);
    const copied: boolean[] = [];
    for (let answer = 0; answer < 4; answer++) {
      copied.push(draft(cache, "Server", "corral"));
      copied.push(draft(cache, "Content-Type", "text/plain; charset=utf-8"));
    }
    expect(copied).toEqual([false, false, false, false, true, true, true, true]);
    lines.fill(0);
    const end = cache.copy("Server", "corral", lines, 10);
    expect(latin1(lines.subarray(10, end))).toBe("Server: corral\r\n");
  });

  test("a third line of a set takes the place of the one used least recently", () => {
    // Same name, same value length and first character: one set.
    const cache = new HeaderLineCache(storage, reservation.whole);
    for (const value of ["a1", "a1", "a2", "a2"]) draft(cache, "X-Test", value);
    expect([draft(cache, "X-Test", "a1"), draft(cache, "X-Test", "a2")]).toEqual([true, true]);
    expect(draft(cache, "X-Test", "a1")).toBe(true); // a2 is now the one used least recently
    for (const value of ["a3", "a3"]) draft(cache, "X-Test", value);
    expect(["a1", "a2", "a3"].map((value) => draft(cache, "X-Test", value))).toEqual([
      true,
      false,
      true,
    ]);
  });

  test("lines longer than an entry are never kept", () => {
    const cache = new HeaderLineCache(storage, null);
    const value = "x".repeat(200);
    for (let round = 0; round < 3; round++) {
      expect(cache.copy("X-Long", value, lines, 0)).toBe(-1);
      cache.encoded("X-Long", value, lines, 0, encode(`X-Long: ${value}\r\n`, 0));
    }
  });
});

describe("a 200's head with header lines", () => {
  const limits = resolveLimits({ workers: 2, maxResponseHeaderBytes: 256 });
  const reservation = new ArenaReservation(
    ArenaReservation.spanOfAll([cachedDateHeaderBytes, WorkerTable.reservedBytes(limits), 1024]),
  );
  const date = new CachedDateHeader(
    Date.UTC(2026, 10, 29, 9, 0, 1),
    reservation.take(cachedDateHeaderBytes),
  );
  const workers = new WorkerTable(limits, reservation);
  const output = reservation.take(1024);
  const head = (draft: ResponseDraft) =>
    latin1(output.subarray(0, draft.writeHead(output, 0, date, "length", "default", 5)));

  test("leaves from the worker's head block, whose Date line follows the second", () => {
    const draft = new ResponseDraft(limits, new StatsCounters(), reservation.whole);
    draft.worker = workers.take()!;
    draft.appendHeader("Content-Type", "text/plain; charset=utf-8");
    const lines = "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\n";
    expect(head(draft)).toBe(`HTTP/1.1 200 OK\r\nDate: Sun, 29 Nov 2026 09:00:01 GMT\r\n${lines}`);
    date.refresh(Date.UTC(2026, 10, 29, 9, 0, 2));
    expect(head(draft)).toBe(`HTTP/1.1 200 OK\r\nDate: Sun, 29 Nov 2026 09:00:02 GMT\r\n${lines}`);
    // The other worker's block is its own, and the other paths write the same lines.
    draft.reset();
    draft.worker = workers.take()!;
    draft.appendHeader("X-Other", "1");
    expect(head(draft)).toBe(
      "HTTP/1.1 200 OK\r\nDate: Sun, 29 Nov 2026 09:00:02 GMT\r\nX-Other: 1\r\nContent-Length: 5\r\n\r\n",
    );
    draft.setStatus(201);
    expect(head(draft)).toBe(
      "HTTP/1.1 201 Created\r\nDate: Sun, 29 Nov 2026 09:00:02 GMT\r\nX-Other: 1\r\nContent-Length: 5\r\n\r\n",
    );
    const separate = new ResponseDraft(limits, new StatsCounters(), null);
    separate.worker = draft.worker;
    separate.headerLength = draft.headerLength;
    expect(head(separate)).toBe(
      "HTTP/1.1 200 OK\r\nDate: Sun, 29 Nov 2026 09:00:02 GMT\r\nX-Other: 1\r\nContent-Length: 5\r\n\r\n",
    );
  });
});
