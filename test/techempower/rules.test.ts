import { describe, expect, test } from "bun:test";
import {
  expectedFortunesHtml,
  normaliseFortunesHtml,
} from "../../bench/techempower/fortunes-html.ts";
import {
  addedFortuneMessage,
  clampQueries,
  fortunesPage,
} from "../../examples/techempower/rules.ts";
import { fortuneRows } from "../../examples/techempower/seed-data.ts";

describe("clampQueries", () => {
  test("missing, empty, not an integer or below 1 is 1; above 500 is 500", () => {
    const inputs = [
      undefined,
      null,
      "",
      "0",
      "1",
      "2",
      "20",
      "499",
      "500",
      "501",
      "99999999999",
      "-1",
      "foo",
      "1.5",
      "1e3",
      " 5",
      "0x10",
      "007",
    ];
    expect(inputs.map((input) => [input, clampQueries(input)])).toEqual([
      [undefined, 1],
      [null, 1],
      ["", 1],
      ["0", 1],
      ["1", 1],
      ["2", 2],
      ["20", 20],
      ["499", 499],
      ["500", 500],
      ["501", 500],
      ["99999999999", 500],
      ["-1", 1],
      ["foo", 1],
      ["1.5", 1],
      ["1e3", 1],
      [" 5", 1],
      ["0x10", 1],
      ["007", 7],
    ]);
  });
});

describe("the fortunes page", () => {
  test("adds the request-time fortune and sorts by message, the Japanese row last", () => {
    const page = fortunesPage(fortuneRows);
    expect(page.map((row) => row.id)).toEqual([11, 4, 5, 2, 8, 0, 3, 7, 10, 6, 9, 1, 12]);
    expect(page[5]).toEqual({ id: 0, message: addedFortuneMessage });
  });

  test("normalising equates equivalent escapes and keeps an unescaped tag a tag", () => {
    const rows = [{ id: 1, message: `<b>"it's" & more</b>` }];
    const expected = expectedFortunesHtml(rows);
    const mustacheStyle =
      "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>\n" +
      "<tr><th>id</th><th>message</th></tr><tr><td>1</td>" +
      "<td>&lt;b&gt;&quot;it&#39;s&quot; &amp; more&lt;&#x2F;b&gt;</td></tr></table></body></html>\n";
    const minimal = mustacheStyle.replace(
      "&lt;b&gt;&quot;it&#39;s&quot; &amp; more&lt;&#x2F;b&gt;",
      `&lt;b>"it's" &amp; more&lt;/b>`,
    );
    const unescaped = mustacheStyle.replace(
      "&lt;b&gt;&quot;it&#39;s&quot; &amp; more&lt;&#x2F;b&gt;",
      `<b>"it's" &amp; more</b>`,
    );
    expect(
      [mustacheStyle, minimal, unescaped].map((html) => normaliseFortunesHtml(html) === expected),
    ).toEqual([true, true, false]);
  });
});
