// Numbers written straight into response bytes (Content-Length, chunk sizes): every digit count,
// both sides of the 32-bit fast path, and the largest exact integer; Latin-1 strings of request
// bytes.
import { describe, expect, test } from "bun:test";
import {
  latin1String,
  latin1StringReusing,
  writeDecimal,
  writeHex,
  writeLatin1,
} from "../src/internal/ascii.ts";

const decoder = new TextDecoder();

function written(write: typeof writeDecimal, value: number): string {
  const target = new Uint8Array(40).fill(0x2a);
  const end = write(target, 3, value);
  // The bytes around the number stay as they were.
  expect([target[2], target[end]]).toEqual([0x2a, 0x2a]);
  return decoder.decode(target.subarray(3, end));
}

test("writeDecimal writes every power of ten and its neighbours, past 2^31 and up to 2^53 - 1", () => {
  const values = [0, 2 ** 31 - 1, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER];
  for (let power = 1; power <= 1e15; power *= 10) values.push(power - 1, power, power + 1);
  for (const value of values) expect(written(writeDecimal, value)).toBe(String(value));
});

test("writeHex writes lower-case digits for chunk sizes", () => {
  for (const value of [0, 9, 10, 15, 16, 255, 4096, 0xabcdef, 2 ** 31, 2 ** 40 + 5]) {
    expect(written(writeHex, value)).toBe(value.toString(16));
  }
});

describe("latin1String", () => {
  test("reads every byte as the code point of the same value, at any offset into any view", () => {
    const bytes = new Uint8Array(300);
    for (let index = 0; index < 256; index++) bytes[index + 20] = index;
    const view = bytes.subarray(20, 276);
    const text = latin1String(view, 0, 256);
    expect(text.length).toBe(256);
    expect(Array.from(text, (character) => character.charCodeAt(0))).toEqual(
      Array.from({ length: 256 }, (_, index) => index),
    );
    for (const [start, end] of [
      [0, 0],
      [5, 6],
      [200, 231],
      [10, 42],
      [0, 256],
    ] as const) {
      expect(latin1String(view, start, end)).toBe(text.slice(start, end));
    }
  });

  test("the reusing form returns the previous string when the bytes spell it", () => {
    const bytes = new TextEncoder().encode("xx/path?q=1");
    const first = latin1StringReusing(bytes, 2, 7, "");
    expect(first).toBe("/path");
    expect(latin1StringReusing(bytes, 2, 7, first)).toBe(first);
    expect(latin1StringReusing(bytes, 2, 11, first)).toBe("/path?q=1");
  });
});

describe("writeLatin1", () => {
  const every = Array.from({ length: 256 }, (_, code) => String.fromCharCode(code)).join("");
  for (const length of [0, 1, 63, 64, 65, 256]) {
    test(`writes ${length} characters as their bytes at an offset into a view`, () => {
      const text = every.slice(256 - length);
      const whole = new Uint8Array(300).fill(7);
      const view = whole.subarray(10, 290);
      expect(writeLatin1(view, 3, text)).toBe(3 + length);
      expect([...view.subarray(3, 3 + length)]).toEqual(Array.from(text, (c) => c.charCodeAt(0)));
      // Nothing around the range is touched.
      expect([whole[12], whole[13 + length]]).toEqual([7, 7]);
    });
  }
});
