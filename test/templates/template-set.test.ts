import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import Mustache from "mustache";
import { escapeHtml } from "../../src/templates/html-escape.ts";
import { TemplateCompileError } from "../../src/templates/template-errors.ts";
import { TemplateSet } from "../../src/templates/template-set.ts";

function compileError(build: () => unknown): TemplateCompileError {
  try {
    build();
  } catch (error) {
    if (error instanceof TemplateCompileError) return error;
    throw error;
  }
  throw new Error("expected a TemplateCompileError");
}

describe("escaping", () => {
  const set = new TemplateSet({
    templates: {
      text: "<p>{{value}}</p>",
      attribute: `<a title="{{value}}">x</a>`,
      raw: "{{{value}}}|{{& value}}",
    },
  });

  test("{{x}} escapes & < > \" ' and mustache.js's / ` =", () => {
    expect(set.renderString("text", { value: `<b>Tom & "Jerry's"</b>` })).toBe(
      "<p>&lt;b&gt;Tom &amp; &quot;Jerry&#39;s&quot;&lt;&#x2F;b&gt;</p>",
    );
    expect(set.renderString("attribute", { value: `" onmouseover="x` })).toBe(
      `<a title="&quot; onmouseover&#x3D;&quot;x">x</a>`,
    );
    expect(escapeHtml("a`b")).toBe("a&#x60;b");
  });

  test("escapeHtml gives what mustache.js's own escape gives, on any text", () => {
    const special = fc.constantFrom("&", "<", ">", '"', "'", "/", "`", "=");
    const text = fc
      .array(fc.oneof(special, fc.string({ unit: "binary", maxLength: 5 })), { maxLength: 12 })
      .map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(text, (value) => {
        // mustache.js's own default escape (a regular expression and a map) is the reference.
        expect(escapeHtml(value)).toBe(Mustache.escape(value));
      }),
      { numRuns: 2000 },
    );
  });

  test("numbers and booleans are written as text; a missing value as nothing", () => {
    expect(
      [{ value: 0 }, { value: 12.5 }, { value: false }, {}, { value: null }].map((view) =>
        set.renderString("text", view),
      ),
    ).toEqual(["<p>0</p>", "<p>12.5</p>", "<p>false</p>", "<p></p>", "<p></p>"]);
  });

  test("{{{x}}} and {{& x}} write the value raw", () => {
    expect(set.renderString("raw", { value: "<em>&amp;</em>" })).toBe(
      "<em>&amp;</em>|<em>&amp;</em>",
    );
  });

  test("reassigning the global Mustache.escape does not turn escaping off", () => {
    const original = Mustache.escape;
    Mustache.escape = (value: string) => value;
    try {
      expect(set.renderString("text", { value: "<script>" })).toBe("<p>&lt;script&gt;</p>");
    } finally {
      Mustache.escape = original;
    }
  });
});

describe("sections and partials", () => {
  const set = new TemplateSet({
    templates: {
      list: "<ul>{{#items}}<li>{{name}}{{^inStock}} (sold out){{/inStock}}</li>{{/items}}{{^items}}<li>none</li>{{/items}}</ul>",
      object: "{{#user}}{{name}} is {{age}}{{/user}}{{^user}}nobody{{/user}}",
      page: "{{> header}}<main>{{#items}}{{> item}}{{/items}}</main>",
      indented: "<div>\n  {{> lines}}\n</div>",
    },
    partials: {
      header: "<h1>{{title}}</h1>{{> nav}}",
      nav: "<nav>{{title}}</nav>",
      item: "<p>{{name}} in {{title}}</p>",
      lines: "one\ntwo\n",
    },
  });

  test("a section repeats for each item; an inverted section shows for an empty list or false", () => {
    const items = [
      { name: "pen", inStock: true },
      { name: "ink", inStock: false },
    ];
    expect(set.renderString("list", { items })).toBe(
      "<ul><li>pen</li><li>ink (sold out)</li></ul>",
    );
    expect(set.renderString("list", { items: [] })).toBe("<ul><li>none</li></ul>");
    expect(set.renderString("list", {})).toBe("<ul><li>none</li></ul>");
  });

  test("a section over an object renders once in its context; false or missing shows the inverse", () => {
    expect(
      [{ user: { name: "Ada", age: 36 } }, { user: false }, {}].map((view) =>
        set.renderString("object", view),
      ),
    ).toEqual(["Ada is 36", "nobody", "nobody"]);
  });

  test("partials include partials, see the item's context in a section, and are re-indented", () => {
    expect(set.renderString("page", { title: "<Shop>", items: [{ name: "pen" }] })).toBe(
      "<h1>&lt;Shop&gt;</h1><nav>&lt;Shop&gt;</nav><main><p>pen in &lt;Shop&gt;</p></main>",
    );
    expect(set.renderString("indented")).toBe("<div>\n  one\n  two\n</div>");
  });

  test("names lists the templates in the order given", () => {
    expect(set.names).toEqual(["list", "object", "page", "indented"]);
  });
});

describe("compiled at construction", () => {
  test("a syntax error throws TemplateCompileError naming the template, its line and column", () => {
    const error = compileError(
      () => new TemplateSet({ templates: { fine: "ok", page: "<ul>\n  {{#items}}<li>\n</ul>" } }),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect({
      message: error.message,
      kind: error.kind,
      templateName: error.templateName,
      line: error.line,
      column: error.column,
    }).toEqual({
      message:
        'corral: template "page" does not compile: Unclosed section "items" (line 3, column 6)',
      kind: "template",
      templateName: "page",
      line: 3,
      column: 6,
    });
  });

  test("a section closed by another name, an unclosed tag and bad delimiters are caught", () => {
    const messages = ["{{#a}}x{{/b}}", "x {{name", "{{=<% =}}"].map(
      (source) => compileError(() => new TemplateSet({ templates: { page: source } })).message,
    );
    expect(messages).toEqual([
      'corral: template "page" does not compile: Unclosed section "a" (line 1, column 8)',
      'corral: template "page" does not compile: Unclosed tag (line 1, column 9)',
      'corral: template "page" does not compile: Invalid tags: <%',
    ]);
  });

  test("a broken partial is named as a partial, even when no template includes it", () => {
    const error = compileError(
      () => new TemplateSet({ templates: { page: "ok" }, partials: { footer: "{{/footer}}" } }),
    );
    expect([error.kind, error.templateName, error.message]).toEqual([
      "partial",
      "footer",
      'corral: partial "footer" does not compile: Unopened section "footer" (line 1, column 1)',
    ]);
  });

  test("an include of an undefined partial fails at construction, not as silent emptiness", () => {
    const messages = [
      { templates: { page: "{{#items}}{{> row}}{{/items}}" } },
      {
        templates: { page: "{{> header}}" },
        partials: { header: "{{^user}}{{> login}}{{/user}}" },
      },
      { templates: { page: "{{> constructor}}" } },
    ].map((options) => compileError(() => new TemplateSet(options)).message);
    expect(messages).toEqual([
      'corral: template "page" does not compile: it includes partial "row", which is not defined',
      'corral: partial "header" does not compile: it includes partial "login", which is not defined',
      'corral: template "page" does not compile: it includes partial "constructor", which is not defined',
    ]);
  });

  test("a partial including itself outside any section fails at construction; inside a section the data ends it", () => {
    // It built, then every render overflowed the stack: a RangeError per request.
    const cases: { templates: { page: string }; partials: Record<string, string> }[] = [
      { templates: { page: "{{> x}}" }, partials: { x: "a{{> x}}" } },
      { templates: { page: "{{> a}}" }, partials: { a: "{{#on}}{{/on}}{{> b}}", b: "{{> a}}" } },
    ];
    const messages = cases.map((options) => compileError(() => new TemplateSet(options)).message);
    expect(messages).toEqual([
      'corral: partial "x" does not compile: it includes itself outside any section (x > x), so it would render forever',
      'corral: partial "a" does not compile: it includes itself outside any section (a > b > a), so it would render forever',
    ]);
    const tree = new TemplateSet({
      templates: { page: "{{#root}}{{> node}}{{/root}}" },
      partials: { node: "<{{name}}>{{#children}}{{> node}}{{/children}}</{{name}}>" },
    });
    const leaf = { name: "c", children: [] };
    expect(
      tree.renderString("page", {
        root: { name: "a", children: [{ name: "b", children: [leaf] }] },
      }),
    ).toBe("<a><b><c></c></b></a>");
  });

  test("partials nested past maxPartialDepth (64) by their data are a RangeError naming the template, not a stack overflow", () => {
    const tree = new TemplateSet({
      templates: { page: "{{#root}}{{> node}}{{/root}}" },
      partials: { node: "{{#child}}{{> node}}{{/child}}." },
    });
    // A leaf says it has no child: Mustache would find its parent's in the context stack.
    const nested = (depth: number): object => {
      let node: object = { child: false };
      for (let level = 0; level < depth; level++) node = { child: node };
      return node;
    };
    // The page's include and 63 more: at the limit.
    expect(tree.renderString("page", { root: nested(63) })).toBe(".".repeat(64));
    expect(() => tree.renderString("page", { root: nested(64) })).toThrow(
      new RangeError(
        'corral: template "page": partials nested more than 64 deep at "node" (a partial including itself as deep as its data goes?)',
      ),
    );
    // The set renders on afterwards.
    expect(tree.renderString("page", { root: nested(2) })).toBe("...");
    expect(() => tree.renderString("page", { root: nested(100_000) })).toThrow(
      "partials nested more than 64 deep",
    );
  });

  test("a source that is not a string, missing templates and a bad maxPageBytes are mistakes", () => {
    const notText = { page: 42 } as unknown as Record<string, string>;
    expect(compileError(() => new TemplateSet({ templates: notText })).message).toBe(
      'corral: template "page" does not compile: its source is number, not a string',
    );
    const noTemplates = {} as { templates: Record<string, string> };
    expect(() => new TemplateSet(noTemplates)).toThrow(
      new TypeError("corral: a TemplateSet needs templates, a record of Mustache sources"),
    );
    expect(() => new TemplateSet({ templates: {}, maxPageBytes: 0 })).toThrow(RangeError);
    expect(() => new TemplateSet({ templates: {}, maxPageBytes: 1.5 })).toThrow(RangeError);
  });
});

test("rendering a template the set does not have is a TypeError listing the known ones", () => {
  const set = new TemplateSet({ templates: { home: "h", about: "a" } });
  const unknown = "hmoe" as "home";
  expect(() => set.renderString(unknown)).toThrow(
    new TypeError('corral: no template named "hmoe" (the set has "home", "about")'),
  );
  const inherited = "toString" as "home";
  expect(() => set.renderString(inherited)).toThrow(TypeError);
});

test("a lambda section may render its text, which the page keeps", () => {
  const set = new TemplateSet({ templates: { page: "{{#bold}}hi {{name}}{{/bold}}" } });
  const bold = () => (text: string, render: (text: string) => string) => `<b>${render(text)}</b>`;
  expect(set.renderString("page", { name: "<Ada>", bold })).toBe("<b>hi &lt;Ada&gt;</b>");
});
