import { expect, test } from "bun:test";
import { BoundedTemplateCache } from "../../src/templates/internal/bounded-template-cache.ts";
import { PageWriter, renderTimeCacheEntries } from "../../src/templates/internal/page-writer.ts";

test("the cache keeps at most its capacity; later entries are not cached", () => {
  const cache = new BoundedTemplateCache(2);
  for (const key of ["a", "b", "c"]) cache.set(key, key.toUpperCase());
  expect([cache.size, cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([
    2,
    "A",
    "B",
    undefined,
  ]);
  cache.clear();
  cache.set("c", "C");
  expect([cache.size, cache.get("c")]).toEqual([1, "C"]);
});

test("a lambda rendering ever-new strings does not grow the writer's parse cache past its bound", () => {
  const writer = new PageWriter(1);
  const source = "{{#each}}x{{/each}}";
  writer.compile(source);
  let counter = 0;
  const each = () => (_text: string, render: (text: string) => string) => render(`${counter++}`);
  for (let index = 0; index < 1000; index++) writer.renderPage("page", source, { each }, {}, 100);
  const cache = writer.templateCache as BoundedTemplateCache;
  expect(cache.size).toBe(1 + renderTimeCacheEntries);
  expect(writer.renderPage("page", source, { each }, {}, 100)).toBe("1000");
});

test("a template is cached once, under its source: rendering it again parses nothing and adds no entry", () => {
  const writer = new PageWriter(1);
  const source = "<p>{{#rows}}{{name}}{{/rows}}</p>";
  const tokens = writer.compile(source);
  const cache = writer.templateCache as BoundedTemplateCache;
  for (let index = 0; index < 3; index++) {
    expect(
      writer.renderPage("page", source, { rows: [{ name: "a" }, { name: "b" }] }, {}, 100),
    ).toBe("<p>ab</p>");
  }
  expect({ size: cache.size, same: writer.compile(source) === tokens }).toEqual({
    size: 1,
    same: true,
  });
});
