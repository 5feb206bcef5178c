/**
 * One satisfiable byte range, both ends inclusive (RFC 9110 §14.1.2).
 *
 * @example
 * const firstHundred: ByteRange = { start: 0, end: 99 };
 */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * What a `Range` header asks of a representation of `length` bytes:
 * - `whole`: no usable `Range` (absent, another unit, malformed, too many parts): send all, 200;
 * - `unsatisfiable`: no range overlaps the representation: 416 with `bytes *\/length`;
 * - `ranges`: sorted, merged, clamped ranges: one is a 206, several a `multipart/byteranges`.
 *
 * @example
 * const request: RangeRequest = parseRange("bytes=0-99", 1000);
 */
export type RangeRequest =
  | { readonly kind: "whole" }
  | { readonly kind: "unsatisfiable" }
  | { readonly kind: "ranges"; readonly ranges: readonly ByteRange[] };

/**
 * The bounds on a `Range` header; past them the whole representation is sent (RFC 9110 §14.2).
 *
 * @example
 * serveStatic({ root: "./public", rangeLimits: { maxRangeParts: 4 } });
 */
export interface RangeLimits {
  /** Range specs read from one header; more makes it a plain 200. Default 64. */
  readonly maxRangeSpecs: number;
  /** Parts of a multipart answer after merging; more makes it a plain 200. Default 16. */
  readonly maxRangeParts: number;
  /**
   * Ranges closer than this (fewer bytes between them) are merged into one part, as RFC 9110
   * §14.2 allows for a gap smaller than the overhead of another part; overlapping and touching
   * ranges always are. Default 80 bytes.
   */
  readonly mergeGapBytes: number;
}

/**
 * The defaults of `RangeLimits`.
 *
 * @example
 * const limits: RangeLimits = { ...defaultRangeLimits, mergeGapBytes: 0 };
 */
export const defaultRangeLimits: RangeLimits = Object.freeze({
  maxRangeSpecs: 64,
  maxRangeParts: 16,
  mergeGapBytes: 80,
});

const whole = { kind: "whole" } as const;
const unsatisfiable = { kind: "unsatisfiable" } as const;
// More significant digits (leading zeros aside) than this cannot be a real offset; they stay
// "very large" without losing the parse.
const maxDigits = 15;

/**
 * Parses `header` (the `Range` value) against a representation of `length` bytes, in one linear
 * pass. RFC 9110 §14.2: a server may ignore a `Range` it cannot or will not serve, so malformed
 * specs, `last < first`, and headers over the limits answer `whole`; specs that start past the
 * end are dropped, and only when every spec is dropped is the answer `unsatisfiable`.
 *
 * @example
 * parseRange("bytes=-100", 1000); // { kind: "ranges", ranges: [{ start: 900, end: 999 }] }
 * parseRange("bytes=5000-", 1000); // { kind: "unsatisfiable" }
 */
export function parseRange(
  header: string | undefined,
  length: number,
  limits: RangeLimits = defaultRangeLimits,
): RangeRequest {
  if (header === undefined) return whole;
  const cursor = { text: header, at: 0 };
  skipSpaces(cursor);
  // RFC 9110 §14.1: the range unit is case-insensitive.
  if (header.slice(cursor.at, cursor.at + 5).toLowerCase() !== "bytes") return whole;
  cursor.at += 5;
  skipSpaces(cursor);
  if (header.charCodeAt(cursor.at) !== 0x3d) return whole;
  cursor.at++;
  const ranges: ByteRange[] = [];
  let specs = 0;
  for (;;) {
    skipSpaces(cursor);
    // RFC 9110 §5.6.1: empty list elements are allowed and ignored.
    if (header.charCodeAt(cursor.at) === 0x2c) {
      cursor.at++;
      continue;
    }
    if (cursor.at >= header.length) break;
    if (++specs > limits.maxRangeSpecs) return whole;
    const spec = readSpec(cursor, length);
    if (spec === "malformed") return whole;
    if (spec !== "unsatisfiable") ranges.push(spec);
    skipSpaces(cursor);
    if (cursor.at >= header.length) break;
    if (header.charCodeAt(cursor.at) !== 0x2c) return whole;
    cursor.at++;
  }
  if (specs === 0) return whole;
  if (ranges.length === 0) return unsatisfiable;
  const merged = mergeRanges(ranges, limits.mergeGapBytes);
  if (merged.length > limits.maxRangeParts) return whole;
  return { kind: "ranges", ranges: merged };
}

interface Cursor {
  readonly text: string;
  at: number;
}

function readSpec(cursor: Cursor, length: number): ByteRange | "malformed" | "unsatisfiable" {
  if (cursor.text.charCodeAt(cursor.at) === 0x2d) {
    cursor.at++;
    const suffix = readNumber(cursor);
    if (suffix < 0) return "malformed";
    // A suffix of 0 selects nothing (RFC 9110 §14.1.3).
    if (suffix === 0 || length === 0) return "unsatisfiable";
    return { start: Math.max(0, length - suffix), end: length - 1 };
  }
  const first = readNumber(cursor);
  if (first < 0 || cursor.text.charCodeAt(cursor.at) !== 0x2d) return "malformed";
  cursor.at++;
  const code = cursor.text.charCodeAt(cursor.at);
  const last = code >= 0x30 && code <= 0x39 ? readNumber(cursor) : Number.POSITIVE_INFINITY;
  if (last < first) return "malformed";
  if (first >= length) return "unsatisfiable";
  return { start: first, end: Math.min(last, length - 1) };
}

/** Reads 1* DIGIT; -1 when none. */
function readNumber(cursor: Cursor): number {
  const start = cursor.at;
  let value = 0;
  // Digits after the leading zeros: only they make a number too large (`000…01` is 1).
  let significantDigits = 0;
  for (;;) {
    const code = cursor.text.charCodeAt(cursor.at);
    if (!(code >= 0x30 && code <= 0x39)) break;
    if (significantDigits > 0 || code !== 0x30) significantDigits++;
    if (significantDigits <= maxDigits) value = value * 10 + (code - 0x30);
    else value = Number.MAX_SAFE_INTEGER;
    cursor.at++;
  }
  return cursor.at === start ? -1 : value;
}

function skipSpaces(cursor: Cursor): void {
  for (;;) {
    const code = cursor.text.charCodeAt(cursor.at);
    if (code !== 0x20 && code !== 0x09) return;
    cursor.at++;
  }
}

/**
 * Sorts and joins ranges that overlap, touch, or leave fewer than `gapBytes` bytes between them
 * ("closer than" the gap: a gap of exactly `gapBytes` keeps two parts): one part per stretch of
 * the file.
 */
function mergeRanges(ranges: ByteRange[], gapBytes: number): ByteRange[] {
  ranges.sort((left, right) => left.start - right.start);
  const merged: ByteRange[] = [];
  let current = ranges[0]!;
  for (let index = 1; index < ranges.length; index++) {
    const next = ranges[index]!;
    // The bytes between the two: negative when they overlap, 0 when they touch.
    const gap = next.start - current.end - 1;
    if (gap <= 0 || gap < gapBytes) {
      if (next.end > current.end) current = { start: current.start, end: next.end };
    } else {
      merged.push(current);
      current = next;
    }
  }
  merged.push(current);
  return merged;
}
