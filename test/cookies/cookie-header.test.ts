import { describe, expect, test } from "bun:test";
import {
  type CookieEntry,
  findCookie,
  parseCookieHeader,
} from "../../src/cookies/cookie-header.ts";
import { serializeSetCookie } from "../../src/cookies/set-cookie.ts";

describe("parseCookieHeader", () => {
  test.each<[string, string, CookieEntry[]]>([
    ["empty header", "", []],
    ["only whitespace", " \t ", []],
    ["one pair", "a=1", [{ name: "a", value: "1" }]],
    [
      "pairs in the order sent",
      "b=2; a=1; c=3",
      [
        { name: "b", value: "2" },
        { name: "a", value: "1" },
        { name: "c", value: "3" },
      ],
    ],
    [
      "duplicates kept, most specific first",
      "id=deep; id=root",
      [
        { name: "id", value: "deep" },
        { name: "id", value: "root" },
      ],
    ],
    [
      "no space after the semicolon",
      "a=1;b=2",
      [
        { name: "a", value: "1" },
        { name: "b", value: "2" },
      ],
    ],
    [
      "spaces and tabs around pieces trimmed",
      " \ta = 1 ;\t b\t=\t2 \t",
      [
        { name: "a", value: "1" },
        { name: "b", value: "2" },
      ],
    ],
    ["empty value", "a=", [{ name: "a", value: "" }]],
    [
      "empty value then another",
      "a=; b=2",
      [
        { name: "a", value: "" },
        { name: "b", value: "2" },
      ],
    ],
    [
      "value with = kept whole",
      "token=abc==; x=1",
      [
        { name: "token", value: "abc==" },
        { name: "x", value: "1" },
      ],
    ],
    ["percent-encoding not decoded", "q=a%20b%3B", [{ name: "q", value: "a%20b%3B" }]],
    ["one pair of quotes removed", 'a="xyz"', [{ name: "a", value: "xyz" }]],
    ["empty quoted value", 'a=""', [{ name: "a", value: "" }]],
    ["only the outer pair removed", 'a=""x""', [{ name: "a", value: '"x"' }]],
    ["lone quote kept", 'a="', [{ name: "a", value: '"' }]],
    ["unbalanced quote kept", 'a="xyz', [{ name: "a", value: '"xyz' }]],
    ["quotes inside kept", 'a=x"y', [{ name: "a", value: 'x"y' }]],
    ["spaces inside a value kept", "a=hello world", [{ name: "a", value: "hello world" }]],
    ["tab inside a value kept", "a=x\ty", [{ name: "a", value: "x\ty" }]],
    ["non-ASCII value kept raw", "a=café", [{ name: "a", value: "café" }]],
    ["trailing semicolon", "a=1;", [{ name: "a", value: "1" }]],
    ["empty pieces", ";; a=1 ;;", [{ name: "a", value: "1" }]],
    ["piece without = skipped", "junk; a=1", [{ name: "a", value: "1" }]],
    ["empty name skipped", "=x; a=1", [{ name: "a", value: "1" }]],
    ["whitespace-only name skipped", " =x; a=1", [{ name: "a", value: "1" }]],
    ["non-token name skipped", "a b=1; a(b=2; c=3", [{ name: "c", value: "3" }]],
    ["non-ASCII name skipped", "café=1; a=1", [{ name: "a", value: "1" }]],
    ["control character in a value skipped", "a=x\0y; b=2", [{ name: "b", value: "2" }]],
    ["CR in a value skipped", "a=x\ry; b=2", [{ name: "b", value: "2" }]],
    ["DEL in a value skipped", "a=x\x7fy; b=2", [{ name: "b", value: "2" }]],
    [
      "every tchar in a name",
      "!#$%&'*+-.^_`|~09AZaz=v",
      [{ name: "!#$%&'*+-.^_`|~09AZaz", value: "v" }],
    ],
    [
      "names are case-sensitive",
      "A=1; a=2",
      [
        { name: "A", value: "1" },
        { name: "a", value: "2" },
      ],
    ],
  ])("%s", (_label, header, expected) => {
    expect(parseCookieHeader(header)).toEqual(expected);
  });

  test("one bad cookie does not hide the others", () => {
    const header = 'good=1; bad piece; =empty; sp ace=2; ctl=\u0001; quoted="ok"; last=3';
    expect(parseCookieHeader(header)).toEqual([
      { name: "good", value: "1" },
      { name: "quoted", value: "ok" },
      { name: "last", value: "3" },
    ]);
  });

  test("reads back what serializeSetCookie writes", () => {
    const pair = serializeSetCookie("session", "abc.DEF-123_~!", { path: "/" }).split(";")[0]!;
    expect(parseCookieHeader(pair)).toEqual([{ name: "session", value: "abc.DEF-123_~!" }]);
  });
});

describe("findCookie", () => {
  const entries = parseCookieHeader("a=1; b=; a=3");

  test("returns the first value of a name", () => {
    expect(findCookie(entries, "a")).toBe("1");
  });

  test("returns an empty value as an empty string, not undefined", () => {
    expect(findCookie(entries, "b")).toBe("");
  });

  test("returns undefined for a missing name", () => {
    expect(findCookie(entries, "c")).toBeUndefined();
  });

  test("compares names case-sensitively", () => {
    expect(findCookie(entries, "A")).toBeUndefined();
  });

  test("returns undefined on no entries", () => {
    expect(findCookie([], "a")).toBeUndefined();
  });
});
