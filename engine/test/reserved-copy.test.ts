// Response heads are copied within the engine's reservation (one `copyWithin`, no view made) and
// the 200 status line and the Date line sit side by side in it, rewritten in place each second.
import { describe, expect, test } from "bun:test";
import { ArenaReservation } from "../src/internal/arena-reservation.ts";
import { CachedDateHeader, cachedDateHeaderBytes } from "../src/internal/http-date.ts";
import { copyReserved } from "../src/internal/reserved-copy.ts";

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
