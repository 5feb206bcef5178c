import { App, PageTooLargeError, params, type RequestView, TemplateSet } from "corral";
import error from "./error.mustache" with { type: "text" };
import hello from "./hello.mustache" with { type: "text" };
import items from "./items.mustache" with { type: "text" };
import layoutFooter from "./layout-footer.mustache" with { type: "text" };
import layoutHeader from "./layout-header.mustache" with { type: "text" };
import report from "./report.mustache" with { type: "text" };

/** The example's staging: every page must fit in it, and a larger one is a clean error page. */
export const templatesStagingBytes = 16 * 1024;
/** The most rows `/report` builds a view for: a bound on the request's work, not on the page. */
export const maxReportRows = 10_000;
/** Decoded query values (`name`, `tag`) longer than this are a 400. */
const queryValueBytes = 256;

/** One item of the shop's catalogue. */
export interface Item {
  readonly name: string;
  readonly price: string;
  readonly tags: readonly string[];
  readonly inStock: boolean;
}

/** The pages of the site. */
export type PageName = "items" | "hello" | "report" | "error";

/** What the handlers share: the compiled templates and the catalogue. */
export interface TemplatesShared {
  readonly templates: TemplateSet<PageName>;
  readonly items: readonly Item[];
}

const catalogue: readonly Item[] = [
  { name: "Fountain pen", price: "€24.00", tags: ["pen", "gift"], inStock: true },
  { name: "Ink, blue-black", price: "€8.50", tags: ["ink"], inStock: true },
  { name: "Notebook <A5>", price: "€12.00", tags: ["paper", "gift"], inStock: false },
  { name: "Blotting paper", price: "€3.20", tags: ["paper"], inStock: true },
];

/** The view of `/report` with `rows` rows, made up from the row numbers. */
export function reportView(rows: number): object {
  return {
    title: "Report",
    count: rows,
    rows: Array.from({ length: rows }, (_, index) => ({
      number: index + 1,
      name: catalogue[index % catalogue.length]!.name,
      quantity: (index * 7) % 13,
    })),
  };
}

/**
 * A small site from Mustache templates embedded at build time and compiled at startup, with a
 * layout (the `layout-header` and `layout-footer` partials) around every page:
 * `GET /` lists the items (`?tag=` filters them), `GET /hello?name=` greets with the name escaped,
 * `GET /report?rows=N` renders a table of N rows, too large for the staging past a few hundred,
 * which the App answers with a 500 error page instead of a truncated one.
 */
export function createTemplatesApp(stagingBytes = templatesStagingBytes): App<TemplatesShared> {
  const templates = new TemplateSet<PageName>({
    templates: { items, hello, report, error },
    partials: { "layout-header": layoutHeader, "layout-footer": layoutFooter },
    maxPageBytes: stagingBytes, // every page must fit the staging: stop rendering past it
  });
  const app = new App<TemplatesShared>({
    shared: { templates, items: catalogue },
    limits: { stagingBytes },
  });

  app.route("GET", "/", (ctx) => {
    const tag = queryText(ctx.request, "tag");
    const shown = tag
      ? ctx.shared.items.filter((item) => item.tags.includes(tag))
      : ctx.shared.items;
    templates.render(ctx.response, 200, "items", { title: "Items", tag, items: shown });
  });

  app.route("GET", "/hello", (ctx) => {
    templates.render(ctx.response, 200, "hello", {
      title: "Hello",
      name: queryText(ctx.request, "name"),
    });
  });

  app.route("GET", "/report", (ctx) => {
    const rowsText = ctx.request.queryValueRaw("rows") ?? "10";
    const rows = /^\d{1,5}$/.test(rowsText) ? Number(rowsText) : Number.NaN;
    if (!(rows <= maxReportRows)) {
      const message = `rows must be a whole number from 0 to ${maxReportRows}.`;
      templates.render(ctx.response, 400, "error", { title: "Bad request", message });
      return;
    }
    templates.render(ctx.response, 200, "report", reportView(rows));
  });

  app.onError((thrown, ctx) => {
    // A client error (a DecodeError's 400) keeps the App's answer; only server errors get a page.
    if (ctx.response.status < 500) return;
    const message =
      thrown instanceof PageTooLargeError
        ? "This page is too large to send. Ask for fewer rows."
        : "Something went wrong on our side.";
    templates.render(ctx.response, 500, "error", { title: "Server error", message });
  });
  return app;
}

const utf8 = new TextDecoder("utf-8");

/**
 * The query value `name`, form-decoded (`+` is a space, as browsers send forms) into a bounded
 * buffer: longer is a `DecodeError` (400). Invalid UTF-8 shows as U+FFFD: it is only displayed.
 */
function queryText(request: RequestView, name: string): string {
  const raw = request.queryValueRaw(name);
  if (raw === undefined) return "";
  return utf8.decode(params.formDecodeInto(raw, new Uint8Array(queryValueBytes)));
}
