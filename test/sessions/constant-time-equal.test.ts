import { describe, expect, test } from "bun:test";
import { constantTimeEqual } from "../../src/sessions/constant-time-equal.ts";

function bytes(...values: number[]): Uint8Array {
  return Uint8Array.from(values);
}

/** A Uint8Array whose index reads are counted, to see that the loop never stops early. */
function counted(source: Uint8Array): { view: Uint8Array; reads: () => number } {
  let reads = 0;
  const view = new Proxy(source, {
    get(target, property) {
      if (typeof property === "string" && /^\d+$/.test(property)) reads++;
      return Reflect.get(target, property);
    },
  });
  return { view, reads: () => reads };
}

describe("constantTimeEqual", () => {
  test.each<[string, Uint8Array, Uint8Array, boolean]>([
    ["equal bytes", bytes(1, 2, 3), bytes(1, 2, 3), true],
    ["two empty arrays", bytes(), bytes(), true],
    ["first byte differs", bytes(9, 2, 3), bytes(1, 2, 3), false],
    ["middle byte differs", bytes(1, 9, 3), bytes(1, 2, 3), false],
    ["last byte differs", bytes(1, 2, 3), bytes(1, 2, 4), false],
    ["shorter left", bytes(1, 2), bytes(1, 2, 3), false],
    ["shorter right", bytes(1, 2, 3), bytes(1, 2), false],
    ["high bit only", bytes(0x80), bytes(0x00), false],
  ])("%s", (_name, left, right, expected) => {
    expect(constantTimeEqual(left, right)).toBe(expected);
  });

  test("every single-bit flip of a 32-byte token is told apart", () => {
    const token = Uint8Array.from({ length: 32 }, (_, index) => (index * 37 + 11) & 0xff);
    const misses: number[] = [];
    for (let bit = 0; bit < 256; bit++) {
      const flipped = token.slice();
      flipped[bit >> 3]! ^= 1 << (bit & 7);
      if (constantTimeEqual(token, flipped)) misses.push(bit);
    }
    expect({ misses, same: constantTimeEqual(token, token.slice()) }).toEqual({
      misses: [],
      same: true,
    });
  });

  test("compares subarray views by their own bytes", () => {
    const arena = bytes(7, 1, 2, 3, 7);
    expect(constantTimeEqual(arena.subarray(1, 4), bytes(1, 2, 3))).toBe(true);
  });

  test("reads every byte of both arrays even when the first byte differs", () => {
    const left = counted(new Uint8Array(32).fill(1));
    const right = counted(new Uint8Array(32).fill(2));
    expect(constantTimeEqual(left.view, right.view)).toBe(false);
    expect([left.reads(), right.reads()]).toEqual([32, 32]);
  });
});
