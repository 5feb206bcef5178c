import { describe, expect, test } from "bun:test";
import { App } from "corral";
import fc from "fast-check";
import { escapeHtml } from "../../src/templates/html-escape.ts";
import { PageBytes } from "../../src/templates/internal/page-bytes.ts";
import { PageWriter } from "../../src/templates/internal/page-writer.ts";
import { PageTooLargeError } from "../../src/templates/template-errors.ts";
import { TemplateSet } from "../../src/templates/template-set.ts";

const encoder = new TextEncoder();

/** Strings of every kind of UTF-16 unit: ASCII with the escaped ones, 2- and 3-byte, pairs, lone halves. */
const anyText = fc
  .array(
    fc.oneof(
      fc.constantFrom("&", "<", ">", '"', "'", "/", "`", "=", "a", " ", "\n"),
      fc.constantFrom(
        "é",
        "☕",
        "日本",
        "😀",
        "\ud800",
        "\udfff",
        "\udbff\udfff",
        "\u0000",
        "\u007f",
      ),
      fc.string({ unit: "binary", maxLength: 4 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(""));

describe("PageBytes writes what TextEncoder makes of the (escaped) text", () => {
  test("for any text, escaped or not, over several writes", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(anyText, fc.boolean()), { maxLength: 8 }), (pieces) => {
        const bytes = new PageBytes(1 << 20);
        let expected = "";
        for (const [text, escaping] of pieces) {
          expect(bytes.write(text, escaping)).toBe(true);
          expected += escaping ? escapeHtml(text) : text;
        }
        const written = bytes.finish()!;
        expect(Buffer.from(written).equals(Buffer.from(encoder.encode(expected)))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  test("a page of exactly maxPageBytes fits; one more byte does not, whatever the write's size", () => {
    // "☕" is 3 bytes and "&" escapes to 5: the bound falls inside a character either way.
    for (const [text, escaping, bytesEach] of [
      ["☕", false, 3],
      ["&", true, 5],
      ["a", false, 1],
    ] as const) {
      const limit = 20_000 * bytesEach;
      const exact = new PageBytes(limit);
      expect(exact.write(text.repeat(20_000), escaping)).toBe(true);
      expect(exact.length).toBe(limit);
      const over = new PageBytes(limit - 1);
      expect(over.write(text.repeat(20_000), escaping)).toBe(false);
      // Piece by piece, the last piece is refused.
      const pieces = new PageBytes(limit);
      for (let index = 0; index < 20_000; index++) expect(pieces.write(text, escaping)).toBe(true);
      expect(pieces.write(text, escaping)).toBe(false);
    }
  });

  test("the buffer grows past its first 16 KiB up to maxPageBytes, keeping what was written", () => {
    const bytes = new PageBytes(200_000);
    const text = "é<".repeat(30_000);
    expect(bytes.write("start|", false)).toBe(true);
    expect(bytes.write(text, true)).toBe(true);
    const expected = encoder.encode(`start|${escapeHtml(text)}`);
    expect(bytes.length).toBe(expected.length);
    expect(Buffer.from(bytes.finish()!).equals(Buffer.from(expected))).toBe(true);
  });
});

/** Random Mustache templates over the view's names, with sections, inverted ones and a partial. */
const templateSource: fc.Arbitrary<string> = fc.letrec<{ node: string; nodes: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    anyText.map((text) => text.replaceAll("{", "(").replaceAll("}", ")")),
    fc.constantFrom("{{word}}", "{{{word}}}", "{{& word}}", "{{count}}", "{{missing}}", "{{.}}"),
    fc.constantFrom("{{> line}}", "\n  {{> line}}\n"),
    tie("nodes").map((inner) => `{{#items}}${inner}{{/items}}`),
    tie("nodes").map((inner) => `{{^empty}}${inner}{{/empty}}`),
    tie("nodes").map((inner) => `{{#flag}}${inner}{{/flag}}`),
  ),
  nodes: fc.array(tie("node"), { maxLength: 5 }).map((nodes) => nodes.join("")),
})).nodes;

const itemView = fc.record({ word: anyText, count: fc.integer() });
const pageView = fc.record({
  word: anyText,
  count: fc.oneof(fc.integer(), fc.double()),
  flag: fc.boolean(),
  empty: fc.constantFrom([], false, 0, ""),
  items: fc.array(fc.oneof(itemView, anyText), { maxLength: 4 }),
});

describe("a page rendered to bytes is the page rendered to a string, encoded", () => {
  test("for random templates, partials and views", () => {
    fc.assert(
      fc.property(templateSource, anyText, pageView, (source, partialText, view) => {
        const line = `<i>{{word}}</i>${partialText.replaceAll("{", "(")}`;
        const partials = { line };
        const writer = new PageWriter(2);
        // Either way the same page, or the same error (a value with no string form).
        const outcome = (render: () => string | Uint8Array) => {
          try {
            const page = render();
            return Buffer.from(typeof page === "string" ? encoder.encode(page) : page).toString(
              "hex",
            );
          } catch (error) {
            return `threw ${String(error)}`;
          }
        };
        expect(
          outcome(() => writer.renderPageBytes("page", source, view, partials, 1 << 20)!),
        ).toBe(outcome(() => writer.renderPage("page", source, view, partials, 1 << 20)));
      }),
      { numRuns: 400 },
    );
  });

  test("template text split around a surrogate pair: each half on its own is U+FFFD, together one character", () => {
    const writer = new PageWriter(4);
    const cases: Array<[string, Record<string, string>]> = [
      ["a\ud83d{{x}}", { x: "\ude00b" }],
      ["{{x}}\ude00b", { x: "a\ud83d" }],
      ["a\ud83d{{x}}\ude00", { x: "" }],
      ["a\ud83d{{x}}c", { x: "b" }],
      ["\ude00{{x}}\ud83d", { x: "\ud83d" }],
    ];
    // Twice each: the second page writes the text's bytes kept from the first.
    for (const [source, view] of [...cases, ...cases]) {
      const page = writer.renderPageBytes("page", source, view, {}, 1 << 10)!;
      expect(Buffer.from(page).toString("hex")).toBe(
        Buffer.from(encoder.encode(writer.renderPage("page", source, view, {}, 1 << 10))).toString(
          "hex",
        ),
      );
    }
  });

  test("a lambda section's text, and another page a lambda renders meanwhile", async () => {
    const templates = new TemplateSet({
      templates: {
        page: "<h1>{{title}}</h1>{{#upper}}<b>{{title}}</b>{{/upper}}|{{#inner}}x{{/inner}}",
        other: "<i>{{title}}</i>",
      },
    });
    const view = {
      title: "Café & <co>",
      upper: () => (text: string, render: (text: string) => string) => render(text).toUpperCase(),
      // Renders another page of the set while the first is being written.
      inner: () => () => templates.renderString("other", { title: "é" }),
    };
    const app = new App({ shared: {} });
    app.route("GET", "/", (ctx) => templates.render(ctx.response, 200, "page", view));
    const response = await app.request("/");
    const expected = "<h1>Café &amp; &lt;co&gt;</h1><B>CAFÉ &AMP; &LT;CO&GT;</B>|<i>é</i>";
    expect([response.status, response.headers.get("content-type"), await response.text()]).toEqual([
      200,
      "text/html; charset=utf-8",
      expected,
    ]);
    expect(templates.renderString("page", view)).toBe(expected);
    await app.stop();
  });

  test("a lambda that renders a page of the same set to a response is given a string page", async () => {
    const templates = new TemplateSet({
      templates: { outer: "[{{#nested}}{{/nested}}]{{word}}", inner: "<p>{{word}}</p>" },
    });
    const app = new App({ shared: {} });
    app.route("GET", "/", (ctx) => {
      const view = {
        word: "é&",
        nested: () => () => {
          // The outer page's buffer is in use: this page is made as a string, then drafted
          // (and replaced by the outer page once that is done).
          templates.render(ctx.response, 200, "inner", { word: "ü" });
          return "";
        },
      };
      templates.render(ctx.response, 200, "outer", view);
    });
    const response = await app.request("/");
    expect([response.status, await response.text()]).toEqual([200, "[]é&amp;"]);
    await app.stop();
  });

  test("a page past maxPageBytes in bytes is a PageTooLargeError naming the template", () => {
    const writer = new PageWriter(1);
    const view = { items: Array.from({ length: 100 }, () => "☕☕☕") };
    const source = "{{#items}}<li>{{.}}</li>{{/items}}";
    const whole = Buffer.byteLength(writer.renderPage("list", source, view, {}, 1 << 20));
    expect(writer.renderPageBytes("list", source, view, {}, whole)!.length).toBe(whole);
    expect(() => writer.renderPageBytes("list", source, view, {}, whole - 1)).toThrow(
      new PageTooLargeError("list", "maxPageBytes", `rendering stopped past ${whole - 1} bytes`),
    );
  });
});
