/**
 * Thrown by `ctx.request.query()` and `ctx.request.form()` when the query or the URL-encoded
 * body holds more entries than the App's `maxParameters` limit allows. The App answers it with
 * 400. Nothing is parsed or returned for such a request: no entry past the limit is dropped
 * quietly, the whole query or form is refused.
 *
 * @example
 * try {
 *   ctx.request.form();
 * } catch (error) {
 *   if (error instanceof ParameterLimitError) console.log(error.source, error.limit); // "form" 1000
 *   throw error;
 * }
 */
export class ParameterLimitError extends Error {
  override readonly name = "ParameterLimitError";
  /** The App answers it with this status (see `StatusError`). */
  readonly httpStatus = 400;
  /** Which part of the request held too many entries. */
  readonly source: "query" | "form";
  /** The `maxParameters` limit in force. */
  readonly limit: number;

  /**
   * @example
   * throw new ParameterLimitError("query", 1000);
   */
  constructor(source: "query" | "form", limit: number) {
    super(`the ${source} has more than ${limit} parameters (maxParameters)`);
    this.source = source;
    this.limit = limit;
  }
}
