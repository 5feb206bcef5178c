import { optionNames, refuseUnknownOptions } from "./option-names.ts";

const httpErrorOptionNames = optionNames<HttpErrorOptions>({
  headers: true,
  body: true,
  cause: true,
});

/** Options of `new HttpError()`. */
export interface HttpErrorOptions {
  /** Extra response headers, e.g. `{ "WWW-Authenticate": "Basic" }`. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A JSON body to answer with instead of the message as text. With the App's
   * `errorFormat: "problem"`, the members of an object body join the problem details
   * (RFC 9457 §3.2 extension members, e.g. `{ errors: [...] }`).
   */
  readonly body?: unknown;
  /** The underlying error (kept as `cause`, never sent). */
  readonly cause?: unknown;
}

/**
 * An error that is an HTTP answer: thrown from a handler or middleware, it becomes a response
 * with its status, its headers and its message as the body (the message is meant for the
 * client), or its JSON `body`. Headers middleware set in `after` hooks are added as on any answer.
 *
 * @example
 * if (!item) throw new HttpError(404, "no such item");
 * throw new HttpError(401, "who are you?", { headers: { "WWW-Authenticate": "Bearer" } });
 * throw new HttpError(422, "invalid todo", { body: { errors: [{ path: "/title", message: "too long" }] } });
 */
export class HttpError extends Error {
  /** The response status, 400-599. */
  readonly status: number;
  /** Extra response headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body, when one was given. */
  readonly body: unknown;

  constructor(status: number, message: string, options: HttpErrorOptions = {}) {
    refuseUnknownOptions(options, httpErrorOptionNames, "new HttpError()");
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new TypeError(`corral: HttpError status must be 400-599, got ${status}`);
    }
    if (typeof message !== "string" && message !== undefined) {
      // Hono's `new HTTPException(404, { message })` would send "[object Object]" to the client.
      throw new TypeError(
        `corral: new HttpError(status, message, options) takes the message as a string, got ${
          message === null ? "null" : typeof message
        }; options ({ headers, body, cause }) come third`,
      );
    }
    if (typeof options !== "object" || options === null) {
      throw new TypeError("corral: the third argument of HttpError is { headers?, body?, cause? }");
    }
    if (options.body !== undefined && JSON.stringify(options.body) === undefined) {
      throw new TypeError("corral: an HttpError body must be a value JSON can represent");
    }
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "HttpError";
    this.status = status;
    this.headers = options.headers ?? {};
    this.body = options.body;
  }
}
