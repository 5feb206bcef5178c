import { describe, expect, test } from "bun:test";
import {
  evaluatePreconditions,
  ifRangeAllows,
  type Validators,
} from "../../src/http/conditional-requests.ts";
import { formatHttpDate, parseHttpDate } from "../../src/http/http-date.ts";

const modified = Date.parse("2026-03-01T12:00:00.750Z");
const validators: Validators = { etag: '"v2"', lastModified: modified };
const atModified = formatHttpDate(modified);
const before = formatHttpDate(modified - 1000);
const after = formatHttpDate(modified + 1000);

function headers(fields: Record<string, string>): (name: string) => string | undefined {
  return (name) => fields[name];
}

/** Each row: method, request headers, expected result. */
function expectResults(
  rows: Array<[string, Record<string, string>, string]>,
  current: Validators = validators,
): void {
  const actual = rows.map(([method, fields]) => [
    method,
    fields,
    evaluatePreconditions(method, headers(fields), current),
  ]);
  expect(actual).toEqual(rows);
}

describe("evaluatePreconditions (RFC 9110 §13.2.2)", () => {
  test("If-None-Match: list, star and weak comparison; 304 for GET/HEAD, 412 otherwise", () => {
    expectResults([
      ["GET", {}, "proceed"],
      ["GET", { "if-none-match": '"v2"' }, "not-modified"],
      ["HEAD", { "if-none-match": 'W/"v2"' }, "not-modified"],
      ["GET", { "if-none-match": '"v1", W/"v2" , "v3"' }, "not-modified"],
      ["GET", { "if-none-match": "*" }, "not-modified"],
      ["GET", { "if-none-match": '"v1", "v3"' }, "proceed"],
      ["GET", { "if-none-match": '"v2' }, "proceed"],
      ["GET", { "if-none-match": 'v2, "v2"' }, "proceed"],
      ["PUT", { "if-none-match": "*" }, "precondition-failed"],
      ["DELETE", { "if-none-match": 'W/"v2"' }, "precondition-failed"],
      ["POST", { "if-none-match": '"other"' }, "proceed"],
    ]);
  });

  test("If-Match uses strong comparison and comes first", () => {
    expectResults([
      ["PUT", { "if-match": '"v2"' }, "proceed"],
      ["PUT", { "if-match": '"v1", "v2"' }, "proceed"],
      ["PUT", { "if-match": "*" }, "proceed"],
      ["PUT", { "if-match": 'W/"v2"' }, "precondition-failed"],
      ["PUT", { "if-match": '"v1"' }, "precondition-failed"],
      ["GET", { "if-match": '"v1"', "if-none-match": '"v1"' }, "precondition-failed"],
      ["GET", { "if-match": '"v2"', "if-none-match": '"v2"' }, "not-modified"],
    ]);
    expectResults([["PUT", { "if-match": '"v2"' }, "precondition-failed"]], {
      etag: 'W/"v2"',
    });
  });

  test('a coded form\'s tag (compress: "v2-gzip") matches in If-None-Match and If-Match, by the same comparison', () => {
    expectResults([
      ["GET", { "if-none-match": '"v2-gzip"' }, "not-modified"],
      ["HEAD", { "if-none-match": 'W/"v2-br"' }, "not-modified"],
      ["GET", { "if-none-match": '"v1-gzip", "v2-zstd"' }, "not-modified"],
      ["GET", { "if-none-match": '"v2-deflate"' }, "proceed"],
      ["GET", { "if-none-match": '"v2-gzip-br"' }, "proceed"],
      ["GET", { "if-none-match": '"v-gzip"' }, "proceed"],
      ["GET", { "if-none-match": '"v2gzip"' }, "proceed"],
      ["PUT", { "if-match": '"v2-gzip"' }, "proceed"],
      ["PUT", { "if-match": '"v1-br", "v2-zstd"' }, "proceed"],
      ["PUT", { "if-match": 'W/"v2-gzip"' }, "precondition-failed"],
      ["PUT", { "if-match": '"v1-gzip"' }, "precondition-failed"],
      ["PUT", { "if-none-match": '"v2-br"' }, "precondition-failed"],
    ]);
    expectResults(
      [
        ["GET", { "if-none-match": '"v2-gzip"' }, "not-modified"],
        ["PUT", { "if-match": '"v2-gzip"' }, "precondition-failed"],
      ],
      { etag: 'W/"v2"' },
    );
    expectResults([["GET", { "if-none-match": '"v2"' }, "proceed"]], { etag: '"v2-gzip"' });
  });

  test("If-Unmodified-Since counts only without If-Match, at one-second precision", () => {
    expectResults([
      ["PUT", { "if-unmodified-since": atModified }, "proceed"],
      ["PUT", { "if-unmodified-since": after }, "proceed"],
      ["PUT", { "if-unmodified-since": before }, "precondition-failed"],
      ["PUT", { "if-unmodified-since": before, "if-match": '"v2"' }, "proceed"],
      ["PUT", { "if-unmodified-since": "not a date" }, "proceed"],
    ]);
  });

  test("If-Modified-Since counts only for GET/HEAD without If-None-Match", () => {
    expectResults([
      ["GET", { "if-modified-since": atModified }, "not-modified"],
      ["HEAD", { "if-modified-since": after }, "not-modified"],
      ["GET", { "if-modified-since": before }, "proceed"],
      ["POST", { "if-modified-since": after }, "proceed"],
      ["GET", { "if-modified-since": after, "if-none-match": '"v1"' }, "proceed"],
      ["GET", { "if-modified-since": "Sunday, 06-Nov-94 08:49:37 GMT" }, "proceed"],
    ]);
    expectResults([["GET", { "if-modified-since": after }, "proceed"]], { etag: '"v2"' });
  });
});

describe("ifRangeAllows (RFC 9110 §13.1.5)", () => {
  test("a strong equal tag or the exact date allows the range; anything else does not", () => {
    const cases: Array<[Record<string, string>, boolean]> = [
      [{}, true],
      [{ "if-range": '"v2"' }, true],
      [{ "if-range": 'W/"v2"' }, false],
      [{ "if-range": '"v1"' }, false],
      [{ "if-range": '"v1", "v2"' }, false],
      [{ "if-range": '"v2-gzip"' }, false],
      [{ "if-range": atModified }, true],
      [{ "if-range": after }, false],
      [{ "if-range": "garbage" }, false],
    ];
    const later = modified + 86_400_000;
    expect(
      cases.map(([fields]) => [fields, ifRangeAllows(headers(fields), validators, later)]),
    ).toEqual(cases);
    expect(ifRangeAllows(headers({ "if-range": '"v2"' }), { etag: 'W/"v2"' })).toBe(false);
  });

  test("the exact date allows the range only once Last-Modified is a second before the response's Date (§8.8.2.2)", () => {
    // `modified` is 12:00:00.750: its second ends at 12:00:00.999.
    const second = Date.parse("2026-03-01T12:00:00Z");
    const cases: Array<[string, number, boolean]> = [
      ["the same instant", modified, false],
      ["the last millisecond of its second", second + 999, false],
      ["the next second", second + 1000, true],
      ["a minute later", second + 60_000, true],
      ["a clock behind the file", second - 1000, false],
    ];
    const ifRange = headers({ "if-range": atModified });
    expect(
      cases.map(([name, now]) => [name, now, ifRangeAllows(ifRange, validators, now)]),
    ).toEqual(cases);
    // A tag is strong whatever the time.
    expect(ifRangeAllows(headers({ "if-range": '"v2"' }), validators, modified)).toBe(true);
  });
});

describe("parseHttpDate (RFC 9110 §5.6.7)", () => {
  test("reads the three forms and refuses impossible dates", () => {
    const instant = Date.parse("1994-11-06T08:49:37Z");
    expect([
      parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"),
      parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"),
      parseHttpDate("Sun Nov  6 08:49:37 1994"),
      parseHttpDate("Mon, 06 Nov 1994 08:49:37 GMT"),
      parseHttpDate("Sun, 31 Nov 1994 08:49:37 GMT"),
      parseHttpDate("Sun, 06 Nov 1994 24:49:37 GMT"),
      parseHttpDate("Sun, 06 Nov 1994 08:49:37 UTC"),
      parseHttpDate(""),
    ]).toEqual([instant, instant, instant, undefined, undefined, undefined, undefined, undefined]);
  });
});
