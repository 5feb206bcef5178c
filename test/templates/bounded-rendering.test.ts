import { expect, test } from "bun:test";
import { App, ResponseLimitError } from "corral";
import { PageTooLargeError } from "../../src/templates/template-errors.ts";
import { TemplateSet } from "../../src/templates/template-set.ts";

const sources = {
  templates: { page: "{{> header}}<ul>{{#items}}<li>{{.}}</li>{{/items}}</ul>" },
  partials: { header: "<!doctype html><title>{{title}}</title>" },
};
// Multi-byte text on purpose: the limits count UTF-8 bytes, not characters.
const view = { title: "Café ☕ & co", items: ["crème", "brûlée", "<thé>"] };
const page = new TemplateSet(sources).renderString("page", view);
const pageBytes = Buffer.byteLength(page);

interface Outcome {
  readonly status: number;
  readonly type: string | null;
  readonly length: string | null;
  readonly body: string;
  readonly errors: readonly string[];
}

/** One GET of a page rendered with `templates` on an App with `stagingBytes`. */
async function renderOnce(templates: TemplateSet<"page">, stagingBytes: number): Promise<Outcome> {
  const app = new App({ shared: {}, limits: { stagingBytes } });
  const errors: string[] = [];
  app.route("GET", "/", (ctx) => templates.render(ctx.response, 200, "page", view));
  app.onError((error) => {
    errors.push(describe(error));
    throw error; // leave the answer to the App's default: a bare 500
  });
  const response = await app.request("/");
  const outcome = {
    status: response.status,
    type: response.headers.get("content-type"),
    length: response.headers.get("content-length"),
    body: await response.text(),
    errors,
  };
  await app.stop();
  return outcome;
}

function describe(error: unknown): string {
  if (!(error instanceof PageTooLargeError)) return String(error);
  const cause = error.cause instanceof ResponseLimitError ? ` (cause: ${error.cause.limit})` : "";
  return `${error.name} ${error.templateName} ${error.limit}${cause}`;
}

const wholePage = (length: number): Outcome => ({
  status: 200,
  type: "text/html; charset=utf-8",
  length: String(length),
  body: page,
  errors: [],
});
const bareError = (error: string): Outcome => ({
  status: 500,
  type: "text/plain; charset=utf-8",
  length: "22",
  body: "Internal Server Error\n",
  errors: [error],
});

test("the known page has more bytes than characters, and is over the engine's minimum staging", () => {
  expect(pageBytes).toBeGreaterThan(page.length);
  expect(pageBytes).toBeGreaterThan(64);
});

test("a page exactly the size of the staging is sent whole; one byte less staging is a clean 500", async () => {
  const templates = new TemplateSet(sources); // maxPageBytes: the default 64 KiB, far above
  expect([
    await renderOnce(templates, pageBytes),
    await renderOnce(templates, pageBytes - 1),
  ]).toEqual([
    wholePage(pageBytes),
    bareError("PageTooLargeError page stagingBytes (cause: stagingBytes)"),
  ]);
});

test("a page exactly maxPageBytes long renders; one byte over is stopped before it reaches the draft", async () => {
  const exact = new TemplateSet({ ...sources, maxPageBytes: pageBytes });
  const under = new TemplateSet({ ...sources, maxPageBytes: pageBytes - 1 });
  expect([await renderOnce(exact, 65536), await renderOnce(under, 65536)]).toEqual([
    wholePage(pageBytes),
    bareError("PageTooLargeError page maxPageBytes"),
  ]);
  // Fewer characters than the bound, more bytes: the exact UTF-8 check catches it.
  expect(page.length).toBeLessThanOrEqual(pageBytes - 1);
  expect(() => under.renderString("page", view)).toThrow(
    new PageTooLargeError(
      "page",
      "maxPageBytes",
      `the page is ${pageBytes} bytes, over ${pageBytes - 1}`,
    ),
  );
});

test("an App can map PageTooLargeError to its own error page", async () => {
  const templates = new TemplateSet({
    templates: { page: sources.templates.page, error: "<h1>{{message}}</h1>" },
    partials: sources.partials,
  });
  const app = new App({ shared: {}, limits: { stagingBytes: pageBytes - 1 } });
  app.route("GET", "/", (ctx) => templates.render(ctx.response, 200, "page", view));
  app.onError((error, ctx) => {
    if (!(error instanceof PageTooLargeError)) throw error;
    templates.render(ctx.response, 500, "error", { message: "Too large to send" });
  });
  const response = await app.request("/");
  expect([response.status, response.headers.get("content-type"), await response.text()]).toEqual([
    500,
    "text/html; charset=utf-8",
    "<h1>Too large to send</h1>",
  ]);
  await app.stop();
});

test("rendering stops soon after the output passes maxPageBytes instead of building the whole page", () => {
  const templates = new TemplateSet({
    templates: { rows: "{{#rows}}<tr><td>{{cell}}</td></tr>{{/rows}}" },
    maxPageBytes: 1000,
  });
  let cellsRead = 0;
  const rows = Array.from({ length: 100_000 }, (_, index) => ({
    get cell() {
      cellsRead++;
      return `row ${index}`;
    },
  }));
  expect(() => templates.renderString("rows", { rows })).toThrow(PageTooLargeError);
  // Each row is over 20 characters, so about 1000 / 20 rows fit before the guard stops.
  expect(cellsRead).toBeGreaterThan(30);
  expect(cellsRead).toBeLessThan(60);
});

test("text a lambda renders and throws away does not count; what it returns does", () => {
  const templates = new TemplateSet({
    templates: { page: "{{#shout}}{{word}}{{/shout}}" },
    maxPageBytes: 10,
  });
  const discarding = (_text: string, render: (text: string) => string) => {
    render("{{word}}".repeat(100)); // 500 characters, thrown away
    return "short";
  };
  const returning = (text: string, render: (text: string) => string) => render(text).repeat(5);
  expect(templates.renderString("page", { word: "hello", shout: () => discarding })).toBe("short");
  expect(() => templates.renderString("page", { word: "hello", shout: () => returning })).toThrow(
    new PageTooLargeError("page", "maxPageBytes", "the page is 25 bytes, over 10"),
  );
});

test("render keeps a Content-Type header() set before it (a feed), rendered as bytes or as a string; HTML otherwise", async () => {
  const feeds = new TemplateSet({
    templates: {
      feed: "<rss><title>{{title}}</title></rss>",
      // A lambda that renders the set while its page renders: that page is made as a string.
      nested: "{{#inner}}x{{/inner}}",
    },
  });
  const app = new App();
  const rss = "application/rss+xml; charset=utf-8";
  app.get("/feed", (ctx) => {
    ctx.response.header("Content-Type", rss);
    feeds.render(ctx.response, 200, "feed", { title: "a & b" });
  });
  app.get("/nested", (ctx) => {
    ctx.response.header("Content-Type", rss);
    feeds.render(ctx.response, 200, "nested", {
      inner: () => () => feeds.renderString("feed", { title: "inner" }),
    });
  });
  app.get("/page", (ctx) => {
    ctx.response.text(200, "replaced");
    feeds.render(ctx.response, 200, "feed", { title: "page" });
  });
  const answers = await Promise.all(
    ["/feed", "/nested", "/page"].map(async (path) => {
      const response = await app.request(path);
      return [response.headers.get("content-type"), await response.text()];
    }),
  );
  expect(answers).toEqual([
    [rss, "<rss><title>a &amp; b</title></rss>"],
    [rss, "<rss><title>inner</title></rss>"],
    ["text/html; charset=utf-8", "<rss><title>page</title></rss>"],
  ]);
  await app.stop();
});
