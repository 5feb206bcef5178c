/**
 * An error that is an HTTP answer: thrown from a handler or middleware, it becomes a response
 * with its status and its message as a plain-text body (the message is meant for the client).
 *
 * @example
 * if (!item) throw new HttpError(404, "no such item");
 */
export class HttpError extends Error {
  /** The response status, 400-599. */
  readonly status: number;
  /** Extra response headers, e.g. `{ "WWW-Authenticate": "Basic" }`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, headers: Readonly<Record<string, string>> = {}) {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new TypeError(`corral: HttpError status must be 400-599, got ${status}`);
    }
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.headers = headers;
  }
}
