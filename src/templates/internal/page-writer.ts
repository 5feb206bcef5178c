import Mustache, { type RenderOptions, type TemplateCache } from "mustache";
import { escapeHtml } from "../html-escape.ts";
import { PageTooLargeError } from "../template-errors.ts";
import { BoundedTemplateCache } from "./bounded-template-cache.ts";
import { encodeTemplateText, PageBytes } from "./page-bytes.ts";

// Fixed rather than read from the globals `Mustache.tags` and `Mustache.escape`, which any code
// in the process may reassign: the set parses and escapes the same way for its whole life.
const tags: [string, string] = ["{{", "}}"];
const options: RenderOptions = Object.freeze({ tags, escape: escapeHtml });

/** Where a text token keeps its encoded bytes (see `PageWriter.#writeText`). */
const encodedPlace = 4;

/** A text token of mustache.js (`["text", text, start, end]`) with its bytes kept after it. */
type TextToken = [string, string, number, number, (Uint8Array | null)?];

/** The parse cache as it is used: token arrays by source. */
interface ParseCache {
  get(source: string): TemplateToken[] | undefined;
  set(source: string, tokens: TemplateToken[]): void;
}

/** What mustache.js takes for "no cache" (`typeof cache === "undefined"`). */
const uncached = undefined as unknown as TemplateCache;

/** Strings parsed at render time that may still be cached (re-indented partials, lambda text). */
export const renderTimeCacheEntries = 256;

/**
 * Partials rendering inside one another, at most: a partial that includes itself for as long as
 * its data nests (a tree) stops here with a `RangeError` naming the template, where it would
 * overflow the stack. Pages nest far less.
 */
export const maxPartialDepth = 64;

/** A token of a parsed template: `[kind, value, start, end, ...]`, as mustache.js makes them. */
export type TemplateToken = readonly [string, string, number, number, ...unknown[]];

interface PageBudget {
  readonly templateName: string;
  readonly maxPageBytes: number;
  /** UTF-16 code units written so far by the page's own tokens. */
  units: number;
  /** Nesting of `render` calls: 1 for the page, more inside a lambda section's `render`. */
  depth: number;
  /** Where the page's own tokens write their bytes, for a page rendered to bytes. */
  readonly bytes: PageBytes | undefined;
}

/**
 * The set's own Mustache writer: its own bounded parse cache, fixed tags and escaping, and a
 * render-time guard. Every piece of output (template text, an escaped or a raw value) passes
 * through `rawValue`, `escapedValue` or `unescapedValue`; they count its UTF-16 length and stop
 * the page once the count passes `maxPageBytes`. A code unit takes at least one UTF-8 byte, so a
 * page stopped this way is certainly too large, and a page of any size is stopped after about
 * `maxPageBytes` characters instead of being built whole. The exact UTF-8 length is checked at
 * the end. Text produced by a lambda section's own `render` is not counted while it is made (the
 * lambda may discard it); what the lambda returns is covered by that final check. A page
 * rendered to bytes (`renderPageBytes`) is counted exactly, in bytes, as they are written.
 */
export class PageWriter extends Mustache.Writer {
  declare templateCache: TemplateCache;
  #budget: PageBudget | undefined;
  /** Partials being rendered inside one another now. */
  #partialDepth = 0;
  /** Made on the first page rendered to bytes, and kept. */
  #bytes: PageBytes | undefined;
  /** A page is being rendered to bytes (a lambda rendering another page gets a string). */
  #bytesInUse = false;

  constructor(compiledSources: number) {
    super();
    this.templateCache = new BoundedTemplateCache(compiledSources + renderTimeCacheEntries);
  }

  /** Parses `source` with the fixed tags, through the cache; throws Mustache's parse errors. */
  compile(source: string): readonly TemplateToken[] {
    return this.parse(source, tags);
  }

  /**
   * mustache.js keys its cache by `source + ":" + tags.join(":")`, a new string on every render
   * whose hash is computed afresh over the whole template (a fortunes page's 200 characters,
   * once per page and once per partial it includes); with the set's fixed tags the key is the source
   * itself, whose hash the string keeps. Keys made by mustache.js for other tags always end in
   * `:` and their tags, which no call here makes: the set never parses with other tags.
   */
  override parse(template: string, tagsOfCall?: Mustache.OpeningAndClosingTags): TemplateToken[] {
    if (tagsOfCall !== tags) return super.parse(template, tagsOfCall);
    // mustache.js's types say its cache holds strings; it holds token arrays.
    const cache = this.templateCache as unknown as ParseCache;
    let tokens = cache.get(template);
    if (tokens === undefined) {
      // Parsed without mustache.js's cache (it would keep a second entry under its own key).
      this.templateCache = uncached;
      try {
        tokens = super.parse(template, tagsOfCall) as TemplateToken[];
      } finally {
        this.templateCache = cache as unknown as TemplateCache;
      }
      cache.set(template, tokens);
    }
    return tokens;
  }

  /** Renders one page within `maxPageBytes` UTF-8 bytes, or throws `PageTooLargeError`. */
  renderPage(
    templateName: string,
    source: string,
    view: unknown,
    partials: Readonly<Record<string, string>>,
    maxPageBytes: number,
  ): string {
    // A lambda may render another page of the set: its budget is its own.
    const outer = this.#budget;
    this.#budget = { templateName, maxPageBytes, units: 0, depth: 0, bytes: undefined };
    try {
      const page = this.render(source, view, partials, options);
      // A UTF-16 code unit is at most 3 UTF-8 bytes: a page that short needs no count (counting
      // a 1 KiB page with one non-Latin-1 character was a tenth of a fortunes request's time).
      if (page.length * 3 <= maxPageBytes) return page;
      const bytes = Buffer.byteLength(page);
      if (bytes > maxPageBytes) {
        throw new PageTooLargeError(
          templateName,
          "maxPageBytes",
          `the page is ${bytes} bytes, over ${maxPageBytes}`,
        );
      }
      return page;
    } finally {
      this.#budget = outer;
    }
  }

  /**
   * Renders one page as UTF-8 bytes within `maxPageBytes`, or throws `PageTooLargeError`; the
   * bytes are valid until the next page. Undefined while another page is being rendered to
   * bytes (a lambda rendering a page): the caller renders that one to a string.
   */
  renderPageBytes(
    templateName: string,
    source: string,
    view: unknown,
    partials: Readonly<Record<string, string>>,
    maxPageBytes: number,
  ): Uint8Array | undefined {
    if (this.#bytesInUse) return undefined;
    if (this.#bytes === undefined || this.#bytes.maxPageBytes !== maxPageBytes) {
      this.#bytes = new PageBytes(maxPageBytes);
    }
    const bytes = this.#bytes;
    bytes.clear();
    const outer = this.#budget;
    this.#budget = { templateName, maxPageBytes, units: 0, depth: 0, bytes };
    this.#bytesInUse = true;
    try {
      this.render(source, view, partials, options);
      const page = bytes.finish();
      if (page === undefined) throw tooLarge(templateName, maxPageBytes);
      return page;
    } finally {
      this.#bytesInUse = false;
      this.#budget = outer;
    }
  }

  /**
   * For a page rendered to bytes, its own tokens (not those of a lambda's `render`) write their
   * bytes as they come, and return nothing to join; otherwise mustache.js's string rendering.
   */
  override renderTokens(
    tokens: string[][],
    context: Mustache.Context,
    partials?: Mustache.PartialsOrLookupFn,
    originalTemplate?: string,
    config?: RenderOptions,
  ): string {
    const budget = this.#budget;
    const bytes = budget?.bytes;
    if (bytes === undefined || budget!.depth !== 1) {
      return super.renderTokens(tokens, context, partials, originalTemplate, config);
    }
    for (let index = 0; index < tokens.length; index++) {
      const token = tokens[index]!;
      const symbol = token[0];
      let text: unknown;
      let escaping = false;
      if (symbol === "text") {
        if (!this.#writeText(token as unknown as TextToken, bytes)) {
          throw tooLarge(budget!.templateName, budget!.maxPageBytes);
        }
        continue;
      } else if (symbol === "name") {
        text = context.lookup(token[1]!);
        // A number's text (digits, ".", "-", "+", "e", "Infinity", "NaN") has nothing to escape.
        escaping = typeof text !== "number";
      } else if (symbol === "&") text = context.lookup(token[1]!);
      // Sections and partials render their tokens here (to bytes) and return "", or return
      // what a lambda section made, written as mustache.js would: unescaped.
      else if (symbol === "#")
        text = this.renderSection(token, context, partials, originalTemplate, config);
      else if (symbol === "^")
        text = this.renderInverted(token, context, partials, originalTemplate, config);
      else if (symbol === ">") text = this.renderPartial(token, context, partials, config);
      if (text == null || text === "") continue;
      if (!bytes.write(String(text), escaping)) {
        throw tooLarge(budget!.templateName, budget!.maxPageBytes);
      }
    }
    return "";
  }

  /**
   * Writes a text token's bytes, encoded on its first page and kept in the token (parsed tokens
   * are cached and shared by every page of the template; mustache.js reads only the first two
   * places of a text token, so the fifth is free): false when they would pass `maxPageBytes`.
   */
  #writeText(token: TextToken, bytes: PageBytes): boolean {
    let encoded = token[encodedPlace];
    if (encoded === undefined) {
      encoded = encodeTemplateText(token[1]);
      token[encodedPlace] = encoded;
    }
    return encoded === null ? bytes.write(token[1], false) : bytes.writeEncoded(encoded, token[1]);
  }

  override renderPartial(
    token: string[],
    context: Mustache.Context,
    partials?: Mustache.PartialsOrLookupFn,
    config?: RenderOptions,
  ): string {
    if (this.#partialDepth === maxPartialDepth) {
      // Each level's `finally` below brings the count back to 0 as the error unwinds.
      const name = this.#budget?.templateName ?? "(a string)";
      throw new RangeError(
        `corral: template "${name}": partials nested more than ${maxPartialDepth} deep at "${token[1]}" (a partial including itself as deep as its data goes?)`,
      );
    }
    this.#partialDepth++;
    try {
      return super.renderPartial(token, context, partials, config);
    } finally {
      this.#partialDepth--;
    }
  }

  override render(
    template: string,
    view: unknown,
    partials?: Mustache.PartialsOrLookupFn,
    config?: RenderOptions,
  ): string {
    const budget = this.#budget;
    if (budget === undefined) return super.render(template, view, partials, config);
    budget.depth++;
    try {
      return super.render(template, view, partials, config);
    } finally {
      budget.depth--;
    }
  }

  override rawValue(token: string[]): string {
    return this.#count(super.rawValue(token));
  }

  override escapedValue(
    token: string[],
    context: Mustache.Context,
    config?: RenderOptions,
  ): string {
    return this.#count(super.escapedValue(token, context, config));
  }

  override unescapedValue(token: string[], context: Mustache.Context): string {
    const value: unknown = super.unescapedValue(token, context);
    // For a missing value mustache.js returns undefined (written as nothing), whatever its typings say.
    if (value == null) return value as unknown as string;
    return this.#count(String(value));
  }

  #count<Text extends string | undefined>(text: Text): Text {
    const budget = this.#budget;
    if (text === undefined || budget === undefined || budget.depth !== 1) return text;
    budget.units += text.length;
    if (budget.units > budget.maxPageBytes) {
      throw new PageTooLargeError(
        budget.templateName,
        "maxPageBytes",
        `rendering stopped after ${budget.units} characters, at least as many bytes, over ${budget.maxPageBytes}`,
      );
    }
    return text;
  }
}

function tooLarge(templateName: string, maxPageBytes: number): PageTooLargeError {
  return new PageTooLargeError(
    templateName,
    "maxPageBytes",
    `rendering stopped past ${maxPageBytes} bytes`,
  );
}
