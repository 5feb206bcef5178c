import { expect, test } from "bun:test";
import {
  unmaskInPlace,
  unmaskInto,
  unmaskWhole,
  wordsOf,
  wordUnmaskMinimumBytes,
} from "../../src/websocket/unmask.ts";

const mask = Uint8Array.of(0x9e, 0x37, 0x79, 0xb9);

/** `bytes` with `[start, start + length)` XORed byte by byte from mask offset `offset`. */
function expected(bytes: Uint8Array, start: number, length: number, offset: number) {
  const result = bytes.slice();
  for (let index = 0; index < length; index++) {
    result[start + index] = result[start + index]! ^ mask[(offset + index) & 3]!;
  }
  return result;
}

function patterned(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, index) => (index * 31 + 7) & 0xff);
}

/** Unmasks a run of `length` after `before` bytes and before `after` bytes, at every offset. */
function checkRun(before: number, length: number, after: number): void {
  for (let offset = 0; offset < 4; offset++) {
    const bytes = patterned(before + length + after);
    const want = expected(bytes, before, length, offset);
    const next = unmaskInPlace(bytes, before, length, mask, offset);
    if (next !== ((offset + length) & 3) || !bytes.every((byte, index) => byte === want[index])) {
      throw new Error(`run of ${length} at ${before} (+${after} after), offset ${offset} is wrong`);
    }
  }
}

test("runs below the word threshold: every length to 40, at every start and mask offset", () => {
  for (let length = 0; length <= 40; length++) {
    for (let before = 0; before < 4; before++) checkRun(before, length, 3);
  }
  for (let length = wordUnmaskMinimumBytes - 20; length < wordUnmaskMinimumBytes; length++) {
    checkRun(1, length, 2);
  }
});

test("word runs: every remainder of 16 bytes, at every start and mask offset, bytes around untouched", () => {
  for (let length = wordUnmaskMinimumBytes; length < wordUnmaskMinimumBytes + 17; length++) {
    for (let before = 0; before < 5; before++) checkRun(before, length, 3);
  }
  checkRun(6, 16 * 1024, 0);
  checkRun(40_001, 16 * 1024 + 5, 20_000);
});

test("a run split in two continues the mask where the first part stopped", () => {
  const payload = patterned(5000);
  const want = expected(payload, 0, payload.length, 0);
  for (const cut of [1, 2, 3, wordUnmaskMinimumBytes, wordUnmaskMinimumBytes + 3, 3971]) {
    const first = payload.slice(0, cut);
    const second = payload.slice(cut);
    const offset = unmaskInPlace(first, 0, first.length, mask, 0);
    unmaskInPlace(second, 0, second.length, mask, offset);
    expect(Uint8Array.from([...first, ...second])).toEqual(want);
  }
});

test("unmasking into another buffer: every length to 40, at every source start, target place and mask offset", () => {
  for (let length = 0; length <= 40; length++) {
    for (let start = 0; start < 4; start++) {
      for (let at = 0; at < 3; at++) {
        for (let offset = 0; offset < 4; offset++) {
          const bytes = patterned(start + length + 3);
          const source = bytes.slice();
          const target = new Uint8Array(at + length + 2).fill(0xaa);
          const next = unmaskInto(bytes, start, length, target, at, mask, offset);
          const want = expected(bytes, start, length, offset).subarray(start, start + length);
          expect([length, start, at, offset, next]).toEqual([
            length,
            start,
            at,
            offset,
            (offset + length) & 3,
          ]);
          expect(target.subarray(at, at + length)).toEqual(want);
          // Only the run is written; the source stays masked.
          expect([...target.subarray(0, at), ...target.subarray(at + length)]).toEqual(
            Array(at + 2).fill(0xaa),
          );
          expect(bytes).toEqual(source);
        }
      }
    }
  }
});

test("a whole payload unmasked into a target's start, by words or by bytes: every length to 70, every source start", () => {
  const arena = new Uint8Array(256);
  for (const targetStart of [0, 4, 1, 2, 3]) {
    const target = arena.subarray(targetStart, targetStart + 72);
    const words = wordsOf(target);
    // Words where the target starts on a 4-byte boundary, bytes elsewhere.
    expect([targetStart, words === null]).toEqual([targetStart, targetStart % 4 !== 0]);
    for (let length = 0; length <= 70; length++) {
      for (let start = 0; start < 4; start++) {
        const bytes = patterned(start + length + 2);
        const source = bytes.slice();
        arena.fill(0xaa);
        unmaskWhole(bytes, start, length, target, words, mask);
        const want = expected(bytes, start, length, 0).subarray(start, start + length);
        expect([targetStart, length, start, target.subarray(0, length)]).toEqual([
          targetStart,
          length,
          start,
          want,
        ]);
        // Nothing past the payload is written, and the source stays masked.
        expect(arena.subarray(targetStart + length).every((byte) => byte === 0xaa)).toBe(true);
        expect(arena.subarray(0, targetStart).every((byte) => byte === 0xaa)).toBe(true);
        expect(bytes).toEqual(source);
      }
    }
  }
});
