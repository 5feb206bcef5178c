import { describe, expect, test } from "bun:test";
import { parseMediaRange, splitListMembers } from "../../src/negotiation/media-range.ts";

describe("splitListMembers", () => {
  test("splits at top-level commas, trims OWS and drops empty members (RFC 9110 §5.6.1)", () => {
    const rows = [
      { value: "", members: [] },
      { value: " , ,\t,", members: [] },
      { value: "a/b", members: ["a/b"] },
      { value: " a/b ,\tc/d\t", members: ["a/b", "c/d"] },
      { value: "a/b,,c/d", members: ["a/b", "c/d"] },
      { value: 'a/b;x="1,2", c/d', members: ['a/b;x="1,2"', "c/d"] },
      {
        value: 'a/b;x="say \\"hi, there\\"", c/d',
        members: ['a/b;x="say \\"hi, there\\""', "c/d"],
      },
      { value: 'a/b;x="open, c/d', members: ['a/b;x="open, c/d'] },
    ];
    expect(rows.map(({ value }) => ({ value, members: splitListMembers(value) }))).toEqual(rows);
  });
});

describe("parseMediaRange", () => {
  test("reads type, subtype, parameters and weight, case-insensitively", () => {
    expect([
      parseMediaRange("text/html"),
      parseMediaRange("Text/HTML;Level=1;Q=0.5"),
      parseMediaRange("*/*;q=0"),
      parseMediaRange("image/*;q=1.000"),
      parseMediaRange('text/plain ; format="flowed" ;charset=UTF-8'),
      parseMediaRange('a/b;x="q\\"uo\\\\te";q=0.25'),
      parseMediaRange("a/b;;q=0.7"),
      parseMediaRange("a/b;q=0."),
    ]).toEqual([
      { type: "text", subtype: "html", parameters: {}, quality: 1 },
      { type: "text", subtype: "html", parameters: { level: "1" }, quality: 0.5 },
      { type: "*", subtype: "*", parameters: {}, quality: 0 },
      { type: "image", subtype: "*", parameters: {}, quality: 1 },
      {
        type: "text",
        subtype: "plain",
        parameters: { format: "flowed", charset: "UTF-8" },
        quality: 1,
      },
      { type: "a", subtype: "b", parameters: { x: 'q"uo\\te' }, quality: 0.25 },
      { type: "a", subtype: "b", parameters: {}, quality: 0.7 },
      { type: "a", subtype: "b", parameters: {}, quality: 0 },
    ]);
  });

  test("parameters after q are accept extensions and ignored (RFC 7231 §5.3.2)", () => {
    expect(parseMediaRange("text/html;level=1;q=0.4;ext=1;level=2")).toEqual({
      type: "text",
      subtype: "html",
      parameters: { level: "1" },
      quality: 0.4,
    });
  });

  test("a parameter named like an Object.prototype member is an ordinary own parameter", () => {
    const range = parseMediaRange("a/b;constructor=1;__proto__=2");
    expect(Object.entries(range!.parameters)).toEqual([
      ["constructor", "1"],
      ["__proto__", "2"],
    ]);
  });

  test("rejects members that break the grammar", () => {
    const malformed = [
      "text",
      "text/",
      "/html",
      "*/html",
      "text/html/x",
      "te xt/html",
      "text/ht ml",
      "text/html;level",
      "text/html;level=",
      "text/html;level =1",
      "text/html;level= 1",
      "text/html;a=b c",
      'text/html;a="unterminated',
      "text/html;a=1;A=2",
      "text/html;q=2",
      "text/html;q=1.001",
      "text/html;q=0.1234",
      "text/html;q=.5",
      "text/html;q=-0",
      "text/html;q=abc",
      'text/html;q="0.5"',
      "text/html;q=",
      "text/htm\u00e9",
      "text/html\u0000",
    ];
    expect(malformed.filter((member) => parseMediaRange(member) !== undefined)).toEqual([]);
  });

  test("a long member with many empty parameters is answered at once, valid or not", () => {
    // Spaces on both sides of each ";" once let the pattern backtrack exponentially: 20 took 2 s.
    const empties = ";  ".repeat(4000);
    expect([parseMediaRange(`a/b${empties}`), parseMediaRange(`a/b${empties}@`)]).toEqual([
      { type: "a", subtype: "b", parameters: {}, quality: 1 },
      undefined,
    ]);
  });

  test("without weights (a server's media type) any q parameter is malformed", () => {
    expect([parseMediaRange("text/html;q=1", false), parseMediaRange("text/html", false)]).toEqual([
      undefined,
      { type: "text", subtype: "html", parameters: {}, quality: 1 },
    ]);
  });
});
