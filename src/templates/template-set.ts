import { defaultLimits, ResponseLimitError } from "corral/engine";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import type { ResponseDraft } from "../response-draft.ts";
import { compileSources } from "./internal/compile-sources.ts";
import { PageWriter } from "./internal/page-writer.ts";
import { PageTooLargeError } from "./template-errors.ts";

const templateSetOptionNames = optionNames<TemplateSetOptions<string>>({
  templates: true,
  partials: true,
  maxPageBytes: true,
});

/**
 * The Content-Type of every rendered page.
 *
 * @example
 * ctx.response.bytes(200, htmlContentType, cachedPage);
 */
export const htmlContentType = "text/html; charset=utf-8";

/**
 * Options of `new TemplateSet()`.
 *
 * @example
 * const options: TemplateSetOptions<"page"> = {
 *   templates: { page: "{{> header}}<p>{{message}}</p>" },
 *   partials: { header: "<h1>{{title}}</h1>" },
 *   maxPageBytes: app.limits.stagingBytes,
 * };
 */
export interface TemplateSetOptions<Name extends string> {
  /** The pages the set renders, by name: Mustache sources. */
  readonly templates: Readonly<Record<Name, string>>;
  /** Sources the templates (and each other) include with `{{> name}}`. */
  readonly partials?: Readonly<Record<string, string>>;
  /**
   * The largest page in UTF-8 bytes; rendering stops as soon as the output passes it. Give it
   * the App's `limits.stagingBytes`, which every page must fit anyway. Default:
   * `defaultLimits.stagingBytes`.
   */
  readonly maxPageBytes?: number;
}

/**
 * Mustache templates compiled once at startup and rendered as bounded HTML pages.
 *
 * - Every template and partial is parsed at construction: a syntax error, or an include of an
 *   undefined partial, throws `TemplateCompileError` naming the source, so it stops the App at
 *   startup rather than failing a request.
 * - Escaping is HTML by default: `{{name}}` escapes `& < > " '` (and `` / ` = ``, as mustache.js
 *   does), so user input renders as text. `{{{name}}}` and `{{& name}}` write the value raw: use
 *   them only for HTML you made yourself.
 * - Sections `{{#items}}...{{/items}}` repeat for each item of a list or show for a truthy value,
 *   inverted sections `{{^items}}...{{/items}}` show for a falsy value or an empty list, and a
 *   missing value renders as nothing (Mustache's rules).
 * - Pages are bounded. `render()` writes the page's UTF-8 bytes as Mustache's tokens render
 *   (piece by piece, no page string to join) into one buffer the set keeps
 *   (at most `maxPageBytes`), stops as soon as they pass `maxPageBytes`, then copies them into
 *   the response's staging, which throws if the staging is smaller. `renderString()` counts the
 *   string while it grows, stops past `maxPageBytes` and checks its exact UTF-8 length. Either
 *   way the handler gets a `PageTooLargeError` and nothing of the page is sent: never a
 *   truncated page.
 *
 * @example
 * const templates = new TemplateSet({
 *   templates: { hello: "{{> header}}<p>Hello, {{name}}!</p>" },
 *   partials: { header: "<h1>{{title}}</h1>" },
 *   maxPageBytes: app.limits.stagingBytes,
 * });
 * app.route("GET", "/hello", (ctx) => {
 *   templates.render(ctx.response, 200, "hello", { title: "Hi", name: "<script>" });
 *   // <h1>Hi</h1><p>Hello, &lt;script&gt;!</p>
 * });
 */
export class TemplateSet<Name extends string = string> {
  /** The bound on a page's UTF-8 length. */
  readonly maxPageBytes: number;
  readonly #templates: ReadonlyMap<string, string>;
  readonly #partials: Readonly<Record<string, string>>;
  readonly #writer: PageWriter;

  constructor(options: TemplateSetOptions<Name>) {
    refuseUnknownOptions(options, templateSetOptionNames, "new TemplateSet()");
    const maxPageBytes = options.maxPageBytes ?? defaultLimits.stagingBytes;
    if (!Number.isSafeInteger(maxPageBytes) || maxPageBytes < 1) {
      throw new RangeError(
        `corral: maxPageBytes must be a whole number >= 1, got ${String(maxPageBytes)}`,
      );
    }
    this.maxPageBytes = maxPageBytes;
    if (typeof options.templates !== "object" || options.templates === null) {
      throw new TypeError("corral: a TemplateSet needs templates, a record of Mustache sources");
    }
    this.#templates = new Map(Object.entries<string>(options.templates));
    // No prototype: `{{> constructor}}` must not find Object.prototype.constructor.
    this.#partials = Object.freeze(Object.assign(Object.create(null), options.partials));
    this.#writer = new PageWriter(this.#templates.size + Object.keys(this.#partials).length);
    compileSources(this.#writer, this.#templates, this.#partials);
  }

  /** The names of the templates, in the order given. */
  get names(): readonly Name[] {
    return [...this.#templates.keys()] as Name[];
  }

  /**
   * Renders template `name` with `view` and makes it the response: `status`, the page as the body
   * (copied into staging), `Content-Type: text/html; charset=utf-8` unless
   * `response.header("Content-Type", …)` set another before (an RSS feed, an SVG). An unknown
   * name is a `TypeError`; a page over `maxPageBytes` or over the staging is a
   * `PageTooLargeError`.
   *
   * @example
   * templates.render(ctx.response, 200, "items", { items: [{ name: "pen" }] });
   */
  render(response: ResponseDraft, status: number, name: Name, view: object = {}): void {
    const page = this.#writer.renderPageBytes(
      name,
      this.#source(name),
      view,
      this.#partials,
      this.maxPageBytes,
    );
    if (page === undefined) {
      // A lambda of a page being rendered renders this one: as a string, its own buffer in use.
      this.#answer(response, status, name, this.renderString(name, view));
      return;
    }
    this.#answer(response, status, name, page);
  }

  /**
   * Renders template `name` with `view` to a string, within `maxPageBytes`: for a page sent some
   * other way, or for tests. Same errors as `render()`.
   *
   * @example
   * templates.renderString("hello", { name: "Ada" }); // "<p>Hello, Ada!</p>"
   */
  renderString(name: Name, view: object = {}): string {
    return this.#writer.renderPage(
      name,
      this.#source(name),
      view,
      this.#partials,
      this.maxPageBytes,
    );
  }

  #source(name: string): string {
    const source = this.#templates.get(name);
    if (source === undefined) {
      const known = [...this.#templates.keys()].map((known) => `"${known}"`).join(", ");
      throw new TypeError(`corral: no template named "${name}" (the set has ${known || "none"})`);
    }
    return source;
  }

  /**
   * Makes `page` the response (copied into the staging), typed as HTML unless `header()` set a
   * type before (a feed rendered as `application/rss+xml`).
   */
  #answer(response: ResponseDraft, status: number, name: string, page: Uint8Array | string): void {
    const typeFromHeader = response.typeFromHeader;
    try {
      if (typeof page === "string") response.text(status, page);
      else {
        response.bytes(status, typeFromHeader ?? htmlContentType, page);
        // Made for this request, as a page made as a string is: it counts as its text would.
        response.countShortLivedBytes(page.length);
      }
    } catch (error) {
      if (!(error instanceof ResponseLimitError)) throw error;
      const length = typeof page === "string" ? Buffer.byteLength(page) : page.length;
      const detail = `a page of ${length} bytes does not fit the response`;
      throw new PageTooLargeError(name, error.limit, detail, error);
    }
    response.header("Content-Type", typeFromHeader ?? htmlContentType);
  }
}
