// The engine's reserved memory is one reservation carved into its arenas: pieces are zeroed,
// aligned, never overlap, and the reservation refuses a piece that does not fit. The engine's own
// sum of its pieces must match what it takes (a mismatch throws at createEngine).
import { expect, test } from "bun:test";
import { createEngine, defaultLimits } from "../index.ts";
import { ArenaReservation } from "../src/internal/arena-reservation.ts";

test("pieces are zeroed, start on 64-byte lines, do not overlap, and a piece past the end is a RangeError", () => {
  const sizes = [100, 64, 1, 4096];
  const arenas = new ArenaReservation(
    sizes.reduce((total, bytes) => total + ArenaReservation.span(bytes), 0) +
      ArenaReservation.span(8 * 4),
  );
  const pieces = sizes.map((bytes) => arenas.take(bytes));
  const words = arenas.takeWords(8);
  expect(pieces.map((piece) => piece.length)).toEqual(sizes);
  expect(words.length).toBe(8);
  for (const piece of [...pieces, words]) {
    expect(piece.byteOffset % 64).toBe(0);
    expect(piece.every((value) => value === 0)).toBe(true);
    expect((piece.buffer as ArrayBuffer).resizable).toBe(false);
  }
  for (const [index, piece] of pieces.entries()) piece.fill(index + 1);
  words.fill(0xffffffff);
  expect(pieces.map((piece) => [...new Set(piece)])).toEqual([[1], [2], [3], [4]]);
  expect(() => arenas.take(1)).toThrow(RangeError);
});

test("an engine's arenas fit in its reservation, with the default limits and with WebSocket buffers off", () => {
  for (const limits of [
    defaultLimits,
    { ...defaultLimits, webSocketMessageBuffers: 0, workers: 3, maxConnections: 7 },
  ]) {
    expect(() => createEngine({ handler() {}, log: null, limits })).not.toThrow();
  }
});

test("when the system refuses WebAssembly memory, each piece is its own zeroed array", () => {
  const original = WebAssembly.Memory;
  let attempts = 0;
  // biome-ignore lint/suspicious/noExplicitAny: the test replaces the constructor for one call.
  (WebAssembly as any).Memory = function refused() {
    attempts++;
    throw new RangeError("WebAssembly.Memory(): could not allocate memory");
  };
  let arenas: ArenaReservation;
  try {
    arenas = new ArenaReservation(ArenaReservation.span(1000) * 2);
  } finally {
    // biome-ignore lint/suspicious/noExplicitAny: restoring what the test replaced.
    (WebAssembly as any).Memory = original;
  }
  expect(attempts).toBe(1);
  const first = arenas.take(1000);
  const second = arenas.take(1000);
  expect([first.buffer.byteLength, second.buffer.byteLength]).toEqual([1000, 1000]);
  expect(first.every((value) => value === 0) && second.every((value) => value === 0)).toBe(true);
  expect(() => arenas.take(1)).toThrow(RangeError);
});

test("pieces that add up to more than 4 GiB are each their own array, as no one array can hold them", () => {
  const piece = 3 * 1024 * 1024 * 1024;
  const arenas = new ArenaReservation(ArenaReservation.span(piece) * 2);
  // Nothing is taken: a 3 GiB zeroed array would be reserved for real. The reservation made no
  // WebAssembly memory (it would have to be 6 GiB), so a small first piece is a plain array.
  expect(arenas.take(64).buffer.byteLength).toBe(64);
});
