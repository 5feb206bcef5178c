// Numbers written straight into response bytes (Content-Length, chunk sizes): every digit count,
// both sides of the 32-bit fast path, and the largest exact integer.
import { expect, test } from "bun:test";
import { writeDecimal, writeHex } from "../src/internal/ascii.ts";

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
