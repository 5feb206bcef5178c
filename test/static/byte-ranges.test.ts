import { expect, test } from "bun:test";
import { defaultRangeLimits, parseRange, type RangeRequest } from "corral";

test("parseRange: every form against a 100-byte representation", () => {
  const cases = [
    undefined,
    "bytes=0-9",
    "bytes=-10",
    "bytes=90-",
    "bytes=95-500",
    "bytes=0-0,-1",
    "bytes=0-9,5-19,200-300",
    "bytes=100-",
    "bytes=-0",
    "bytes=9-0",
    "bytes=0-9;",
    "bytes=,0-1,,",
    "bytes 0-1",
    "pages=1-2",
    "bytes=99999999999999999999-",
    `bytes=${Array.from({ length: 65 }, (_, index) => `${index}-${index}`).join(",")}`,
  ].map((header) => [header?.slice(0, 24), parseRange(header, 100)]);
  expect(cases).toEqual([
    [undefined, { kind: "whole" }],
    ["bytes=0-9", { kind: "ranges", ranges: [{ start: 0, end: 9 }] }],
    ["bytes=-10", { kind: "ranges", ranges: [{ start: 90, end: 99 }] }],
    ["bytes=90-", { kind: "ranges", ranges: [{ start: 90, end: 99 }] }],
    ["bytes=95-500", { kind: "ranges", ranges: [{ start: 95, end: 99 }] }],
    [
      "bytes=0-0,-1",
      {
        kind: "ranges",
        ranges: [
          { start: 0, end: 0 },
          { start: 99, end: 99 },
        ],
      },
    ],
    ["bytes=0-9,5-19,200-300", { kind: "ranges", ranges: [{ start: 0, end: 19 }] }],
    ["bytes=100-", { kind: "unsatisfiable" }],
    ["bytes=-0", { kind: "unsatisfiable" }],
    ["bytes=9-0", { kind: "whole" }],
    ["bytes=0-9;", { kind: "whole" }],
    ["bytes=,0-1,,", { kind: "ranges", ranges: [{ start: 0, end: 1 }] }],
    ["bytes 0-1", { kind: "whole" }],
    ["pages=1-2", { kind: "whole" }],
    ["bytes=999999999999999999", { kind: "unsatisfiable" }],
    ["bytes=0-0,1-1,2-2,3-3,4-", { kind: "whole" }],
  ]);
  expect(
    parseRange("bytes=0-0,50-50", 100, { maxRangeSpecs: 64, maxRangeParts: 16, mergeGapBytes: 0 }),
  ).toEqual({
    kind: "ranges",
    ranges: [
      { start: 0, end: 0 },
      { start: 50, end: 50 },
    ],
  });
});

test("parseRange is linear: a 16 KiB header of digits and commas parses at once", () => {
  const long = `bytes=${"1".repeat(16 * 1024)}-`;
  const commas = `bytes=${",".repeat(16 * 1024)}0-1`;
  expect([parseRange(long, 100).kind, parseRange(commas, 100).kind]).toEqual([
    "unsatisfiable",
    "ranges",
  ]);
});

test("parseRange: leading zeros do not count toward the 15-digit cutoff; more significant digits are still too large", () => {
  const huge = Number.MAX_SAFE_INTEGER;
  const cases: Array<[string, number, RangeRequest]> = [
    ["bytes=0000000000000000001-2", 100, { kind: "ranges", ranges: [{ start: 1, end: 2 }] }],
    ["bytes=0-00000000000000000009", 100, { kind: "ranges", ranges: [{ start: 0, end: 9 }] }],
    ["bytes=-00000000000000000005", 100, { kind: "ranges", ranges: [{ start: 95, end: 99 }] }],
    ["bytes=00000-0", 100, { kind: "ranges", ranges: [{ start: 0, end: 0 }] }],
    // 15 significant digits are read exactly, 16 are "very large": past any file, or clamped.
    [
      "bytes=000123456789012345-",
      huge,
      { kind: "ranges", ranges: [{ start: 123456789012345, end: huge - 1 }] },
    ],
    ["bytes=0001234567890123456-", huge, { kind: "unsatisfiable" }],
    ["bytes=000100000000000000000000-", 100, { kind: "unsatisfiable" }],
    ["bytes=0-00099999999999999999999", 100, { kind: "ranges", ranges: [{ start: 0, end: 99 }] }],
    ["bytes=-00099999999999999999999", 100, { kind: "ranges", ranges: [{ start: 0, end: 99 }] }],
    [`bytes=${"0".repeat(16 * 1024)}1-2`, 100, { kind: "ranges", ranges: [{ start: 1, end: 2 }] }],
  ];
  expect(cases.map(([header, length]) => [header, length, parseRange(header, length)])).toEqual(
    cases,
  );
});

test("parseRange merges ranges closer than mergeGapBytes: a gap of exactly the limit keeps two parts", () => {
  const parts = (header: string, mergeGapBytes?: number) => {
    const limits = {
      ...defaultRangeLimits,
      ...(mergeGapBytes === undefined ? {} : { mergeGapBytes }),
    };
    const request = parseRange(header, 1000, limits);
    return request.kind === "ranges"
      ? request.ranges.map((range) => `${range.start}-${range.end}`)
      : request.kind;
  };
  // Between 0-9 and N-: N - 10 bytes.
  expect({
    gap79: parts("bytes=0-9, 89-99"),
    gap80: parts("bytes=0-9, 90-99"),
    gap81: parts("bytes=0-9, 91-99"),
    unsorted80: parts("bytes=90-99, 0-9"),
    noGapTouching: parts("bytes=0-9, 10-19", 0),
    noGapOverlapping: parts("bytes=0-9, 5-19", 0),
    noGapOneByte: parts("bytes=0-9, 11-19", 0),
    gapOneTouching: parts("bytes=0-9, 10-19", 1),
    gapOneOneByte: parts("bytes=0-9, 11-19", 1),
  }).toEqual({
    gap79: ["0-99"],
    gap80: ["0-9", "90-99"],
    gap81: ["0-9", "91-99"],
    unsorted80: ["0-9", "90-99"],
    noGapTouching: ["0-19"],
    noGapOverlapping: ["0-19"],
    noGapOneByte: ["0-9", "11-19"],
    gapOneTouching: ["0-19"],
    gapOneOneByte: ["0-9", "11-19"],
  });
});
