import type { ResponseLimitError } from "corral/engine";

/**
 * A template or partial given to `new TemplateSet()` does not compile: a Mustache syntax error
 * (an unclosed tag or section, a section closed by another name, invalid delimiters), an
 * include of a partial that is not defined, or a partial that includes itself (directly or
 * through others) outside any section, which would render forever. Thrown at construction, so a broken template stops
 * the App at startup instead of failing a request. A `TypeError`: it is a mistake in the program.
 *
 * @example
 * try {
 *   new TemplateSet({ templates: { page: "{{#items}}<li>" } });
 * } catch (error) {
 *   if (error instanceof TemplateCompileError) console.error(error.templateName, error.line);
 *   // page 1
 * }
 */
export class TemplateCompileError extends TypeError {
  /** Whether the source was one of the templates or one of the partials. */
  readonly kind: "template" | "partial";
  /** The name the source was given under. */
  readonly templateName: string;
  /** The 1-based line of the error in the source, when Mustache reported a position. */
  readonly line: number | undefined;
  /** The 1-based column of the error in the source, when Mustache reported a position. */
  readonly column: number | undefined;

  constructor(
    kind: "template" | "partial",
    templateName: string,
    detail: string,
    position?: { readonly line: number; readonly column: number },
  ) {
    const where =
      position === undefined ? "" : ` (line ${position.line}, column ${position.column})`;
    super(`corral: ${kind} "${templateName}" does not compile: ${detail}${where}`);
    this.name = "TemplateCompileError";
    this.kind = kind;
    this.templateName = templateName;
    this.line = position?.line;
    this.column = position?.column;
  }
}

/**
 * A rendered page would not fit: past the `TemplateSet`'s `maxPageBytes` (found while rendering,
 * so an oversized page stops early instead of being built whole) or past the response's staging
 * (the draft's `ResponseLimitError`, kept as `cause`). Nothing of the page is sent: the handler
 * throws, its draft is discarded, and the App answers a bare 500 unless `app.onError` maps it.
 *
 * @example
 * app.onError((error, ctx) => {
 *   if (error instanceof PageTooLargeError) {
 *     templates.render(ctx.response, 500, "error", { message: "This page is too large to send." });
 *   }
 * });
 */
export class PageTooLargeError extends Error {
  /** The template whose page did not fit. */
  readonly templateName: string;
  /** The bound it passed: the set's own `maxPageBytes`, or the response draft's limit. */
  readonly limit: "maxPageBytes" | ResponseLimitError["limit"];

  constructor(
    templateName: string,
    limit: PageTooLargeError["limit"],
    detail: string,
    cause?: ResponseLimitError,
  ) {
    super(
      `corral: the page of template "${templateName}" is over ${limit}: ${detail}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "PageTooLargeError";
    this.templateName = templateName;
    this.limit = limit;
  }
}
