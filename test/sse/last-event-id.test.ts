import { expect, test } from "bun:test";
import { parseLastEventId } from "../../src/sse/last-event-id.ts";

test.each<[string, string | undefined, number | undefined]>([
  ["missing header", undefined, undefined],
  ["empty", "", undefined],
  ["zero", "0", 0],
  ["one", "1", 1],
  ["a typical id", "42", 42],
  ["largest safe integer", "9007199254740991", Number.MAX_SAFE_INTEGER],
  ["one past the largest safe integer", "9007199254740992", undefined],
  ["twenty digits", "99999999999999999999", undefined],
  ["leading zero", "042", undefined],
  ["double zero", "00", undefined],
  ["negative", "-1", undefined],
  ["plus sign", "+1", undefined],
  ["decimal point", "1.0", undefined],
  ["exponent", "1e3", undefined],
  ["hex", "0x10", undefined],
  ["leading space", " 1", undefined],
  ["trailing space", "1 ", undefined],
  ["non-ASCII digits", "١٢", undefined],
  ["full-width digits", "１２", undefined],
  ["word", "abc", undefined],
  ["NUL", "1\u0000", undefined],
])("%s", (_name, header, expected) => {
  expect(parseLastEventId(header)).toBe(expected);
});
