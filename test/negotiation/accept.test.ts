import { describe, expect, test } from "bun:test";
import { mediaTypeQuality, negotiate, parseAccept } from "../../src/negotiation/accept.ts";

const json = "application/json";
const html = "text/html; charset=utf-8";
const plain = "text/plain; charset=utf-8";
/** Server preference: JSON, then HTML, then text. */
const available = [json, html, plain] as const;

/** Each row is an Accept header and the type `negotiate` must choose for it. */
function expectChoices(rows: Array<[string | undefined, string | undefined]>): void {
  expect(rows.map(([header]) => [header, negotiate(header, available)])).toEqual(rows);
}

describe("parseAccept", () => {
  test("keeps the valid ranges in order and drops malformed members whole", () => {
    const ranges = parseAccept(
      "text/html;q=0.8, , nonsense, */html, application/json;q=2, TEXT/Plain;Format=flowed, */*;q=0.1",
    );
    expect(ranges).toEqual([
      { type: "text", subtype: "html", parameters: {}, quality: 0.8 },
      { type: "text", subtype: "plain", parameters: { format: "flowed" }, quality: 1 },
      { type: "*", subtype: "*", parameters: {}, quality: 0.1 },
    ]);
  });

  test("a comma inside a quoted parameter value does not split the member", () => {
    expect(parseAccept('text/html;x="a, b";q=0.5, image/png')).toEqual([
      { type: "text", subtype: "html", parameters: { x: "a, b" }, quality: 0.5 },
      { type: "image", subtype: "png", parameters: {}, quality: 1 },
    ]);
  });
});

describe("mediaTypeQuality", () => {
  test("gives each type the weight of its most specific range (RFC 7231 §5.3.2 example)", () => {
    const ranges = parseAccept(
      "text/*;q=0.3, text/html;q=0.7, text/html;level=1, text/html;level=2;q=0.4, */*;q=0.5",
    );
    const types = [
      "text/html;level=1",
      "text/html",
      "text/plain",
      "image/jpeg",
      "text/html;level=2",
      "text/html;level=3",
    ];
    expect(types.map((type) => [type, mediaTypeQuality(ranges, type)])).toEqual([
      ["text/html;level=1", 1],
      ["text/html", 0.7],
      ["text/plain", 0.3],
      ["image/jpeg", 0.5],
      ["text/html;level=2", 0.4],
      ["text/html;level=3", 0.7],
    ]);
  });

  test("RFC 9110 §12.5.1 precedence: flowed plain over plain over text/* over */*", () => {
    const ranges = parseAccept(
      "*/*;q=0.1, text/*;q=0.2, text/plain;q=0.3, text/plain;format=flowed",
    );
    expect([
      mediaTypeQuality(ranges, "text/plain;format=flowed"),
      mediaTypeQuality(ranges, "text/plain;format=fixed"),
      mediaTypeQuality(ranges, "text/csv"),
      mediaTypeQuality(ranges, "image/png"),
    ]).toEqual([1, 0.3, 0.2, 0.1]);
  });

  test("no matching range is 0; equally specific duplicates: the first one counts", () => {
    expect([
      mediaTypeQuality(parseAccept("image/*"), "text/html"),
      mediaTypeQuality(parseAccept("text/html;q=0.2, text/html;q=0.9"), "text/html"),
      mediaTypeQuality(
        parseAccept("text/html;a=1;q=0.2, text/html;b=2;q=0.9"),
        "text/html;b=2;a=1",
      ),
    ]).toEqual([0, 0.2, 0.2]);
  });

  test("parameter names and charset values are case-insensitive, other values are not", () => {
    expect([
      mediaTypeQuality(parseAccept("text/html;CHARSET=UTF-8;q=0.6"), html),
      mediaTypeQuality(parseAccept("text/html;level=A;q=0.6"), "text/html;level=a"),
      mediaTypeQuality(parseAccept('text/html;level="1";q=0.6'), "text/html;level=1"),
    ]).toEqual([0.6, 0, 0.6]);
  });

  test("only concrete media types can be weighed", () => {
    for (const type of ["text/*", "*/*", "text", "text/html;q=1", " text/html"]) {
      expect(() => mediaTypeQuality([], type)).toThrow(TypeError);
    }
  });
});

describe("negotiate", () => {
  test("no header, an empty one or one with no valid member accepts anything", () => {
    expectChoices([
      [undefined, json],
      ["", json],
      [" , ", json],
      ["nonsense, text/html;q=7", json],
    ]);
  });

  test("q-values choose, and equal weights go to the server's order", () => {
    expectChoices([
      ["text/plain", plain],
      ["text/html, application/json;q=0.9", html],
      ["text/plain;q=0.5, text/html;q=0.4", plain],
      ["text/plain, text/html", html],
      ["text/html;q=0.5, text/plain;q=0.5, application/json;q=0.5", json],
      ["application/json;q=0.001, text/plain;q=0.002", plain],
      ["text/plain;q=1.0, application/json;q=1.000", json],
    ]);
  });

  test("wildcards: */* takes the first, type/* the first of that type", () => {
    expectChoices([
      ["*/*", json],
      ["text/*", html],
      ["application/*;q=0.5, text/*", html],
      ["image/*, */*;q=0.1", json],
    ]);
  });

  test("more specific ranges override less specific ones", () => {
    expectChoices([
      ["*/*;q=0.1, text/*;q=0.5, text/plain", plain],
      ["text/*, text/html;q=0.2", plain],
      ["*/*, application/json;q=0.3", html],
      ["text/*;q=0.9, */*;q=0.1", html],
    ]);
  });

  test("q=0 means not acceptable, even where a wildcard admits the type", () => {
    expectChoices([
      ["application/json;q=0, */*", html],
      ["application/json;q=0, text/html;q=0, */*", plain],
      ["*/*;q=0", undefined],
      ["text/*;q=0, application/*;q=0", undefined],
      ["*/*;q=0, text/plain;q=0.01", plain],
      ["text/html;q=0.000, text/*;q=0.5", plain],
    ]);
  });

  test("nothing acceptable is undefined (the caller answers 406)", () => {
    expectChoices([
      ["image/png", undefined],
      ["image/*, audio/*;q=0.5", undefined],
      ["application/xml", undefined],
    ]);
  });

  test("parameters: a range with parameters matches only types that carry them", () => {
    expectChoices([
      ["text/html;level=1", undefined],
      ["text/html;level=1, text/plain;q=0.5", plain],
      ["text/html;charset=utf-8", html],
      ["text/html;charset=UTF-8;q=0.9, text/*;q=0.1", html],
      ["text/html;charset=iso-8859-1, text/*;q=0.1", html],
      ["text/html;charset=iso-8859-1;q=0, text/*;q=0.1", html],
      ["text/html;charset=utf-8;q=0, text/*;q=0.1", plain],
    ]);
  });

  test("types and subtypes are case-insensitive on both sides", () => {
    expect([
      negotiate("TEXT/HTML", available),
      negotiate("Application/JSON;Q=0.2, Text/*;Q=0.1", available),
      negotiate("text/html", ["Text/HTML"]),
    ]).toEqual([html, json, "Text/HTML"]);
  });

  test("malformed members are ignored, the rest still decide", () => {
    expectChoices([
      ["text/html;q=2, text/plain", plain],
      ["application/json;q=abc, text/*;q=0.5", html],
      ["*/json, text/plain;q=0.1", plain],
      ['application/json;x="unterminated, text/plain', json],
      ["text/plain, application/json;q=0.5;;", plain],
    ]);
  });

  test("an empty or malformed list of available types is a programmer mistake", () => {
    expect(() => negotiate("*/*", [])).toThrow(TypeError);
    expect(() => negotiate("*/*", ["json"])).toThrow(TypeError);
    expect(() => negotiate("*/*", ["text/*"])).toThrow(TypeError);
  });
});
