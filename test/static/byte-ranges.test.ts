import { expect, test } from "bun:test";
import { parseRange } from "corral";

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
