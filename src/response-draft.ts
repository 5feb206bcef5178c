import type { Exchange } from "corral/engine";
import { type CookieOptions, expiredCookie, serializeSetCookie } from "./cookies/set-cookie.ts";
import { formatText } from "./format-text.ts";
import { validateRedirect } from "./response/redirect.ts";
import type { StreamEncoder } from "./response/stream-encoder.ts";
import { Stream } from "./response-stream.ts";

/**
 * The handler's private response, drafted into the worker's reserved staging. Nothing is sent
 * until the handler returns; if it throws, the draft is discarded before error mapping. Output
 * past the staging or response limits throws `ResponseLimitError`: never a truncated response.
 *
 * @example
 * ctx.response.header("Cache-Control", "no-store");
 * ctx.response.json(200, { ok: true });
 */
export class ResponseDraft {
  readonly #exchange: Exchange;
  #contentType: string | undefined;
  /**
   * Whether `header("Content-Type", …)` set the type: `text`, `json` and `print` then keep it
   * instead of putting their own in its place (an HTML page sent with `text` after its type).
   */
  #typeFromHeader = false;
  #stream: Stream | undefined;
  #streamStatus = 200;
  #encoderFor: ((status: number, contentType: string) => StreamEncoder | undefined) | undefined;
  /**
   * `pristine`: status still 200 and no body drafted (the first body needs no reset of either);
   * `drafted`; `guarded`: `before` hooks drafted an answer (a status or a body) and none returned
   * "stop", so the handler runs and its own answer would replace theirs (a 401 turned into the
   * page it guarded): each call that replaces one is a `TypeError` until the `after` hooks run.
   */
  #phase: DraftPhase = pristine;
  /** `borrowBody()` made the body: only another `borrowBody()` replaces it. */
  #borrowed = false;
  /** @internal The request a stream answers ("GET /path"), for reports once it is over. */
  streamedRequest: string | undefined;

  /** @internal Made by the App for each request. */
  constructor(exchange: Exchange) {
    this.#exchange = exchange;
  }

  /**
   * The status drafted so far (200 until set); after error mapping, the error's. A stream's status
   * stays readable once the stream has ended the request.
   */
  get status(): number {
    if (this.#stream !== undefined && !this.#exchange.live) return this.#streamStatus;
    return this.#exchange.status;
  }

  /** The Content-Type drafted so far. */
  get contentType(): string | undefined {
    return this.#contentType;
  }

  /**
   * Sets the status without touching the body. A 204 or 304 over a drafted body, and a change
   * after a stream's first flush, are a `TypeError`.
   */
  setStatus(status: number): void {
    if (this.#phase === guarded) throw middlewareAnswerError("setStatus", this.#exchange.status);
    this.#exchange.setStatus(status);
    this.#phase = drafted;
  }

  /**
   * Adds a header (copied). Names must be tokens, values free of CR/LF (a `TypeError` otherwise);
   * `Content-Type` replaces the drafted type instead of adding a second one. Once a stream's first
   * flush sent the headers (see `headersSent`), adding one is a `TypeError`.
   */
  header(name: string, value: string): void {
    this.#assertHeadersOpen();
    if (isContentType(name)) {
      if (this.#stream !== undefined) {
        throw new TypeError(
          "corral: a stream's content type is set by stream(status, contentType)",
        );
      }
      validateContentType(value);
      this.#contentType = value;
      this.#typeFromHeader = true;
      return;
    }
    this.#exchange.setHeader(name, value);
  }

  /** @internal The type `header("Content-Type", …)` set, if that is the drafted type now. */
  get typeFromHeader(): string | undefined {
    return this.#typeFromHeader ? this.#contentType : undefined;
  }

  /**
   * The drafted value of header `name` (case-insensitive; several lines joined with ", "), or
   * `undefined`: what `after` hooks read to decide (`Content-Type`, `Cache-Control`, `ETag`, ...).
   *
   * @example
   * if (ctx.response.getHeader("content-encoding") === undefined) compressIt();
   */
  getHeader(name: string): string | undefined {
    if (isContentType(name) && this.#contentType !== undefined) {
      return this.#contentType;
    }
    return this.#exchange.responseHeader(name);
  }

  /** Removes every drafted line of header `name`; a `TypeError` once a stream's head is out. */
  removeHeader(name: string): void {
    this.#assertHeadersOpen();
    if (isContentType(name)) this.#contentType = undefined;
    this.#exchange.removeResponseHeader(name);
  }

  /**
   * The drafted body as it stands, without a copy: a view of the staged bytes (valid until the
   * body changes) or the borrowed bytes; empty for a stream, whose bytes go out as they are
   * flushed. `after` hooks read it (an ETag of the content, compression).
   *
   * @example
   * const digest = Bun.hash(ctx.response.body);
   */
  get body(): Uint8Array {
    if (this.#stream !== undefined) return emptyBody;
    return this.#exchange.draftedBody;
  }

  /**
   * Replaces the drafted body with a copy of `bytes`, keeping status, headers and content type
   * (a compressed form, say). A borrowed body stays borrowed when `bytes` do not fit in staging.
   * A stream's body cannot be replaced (`TypeError`).
   *
   * @example
   * ctx.response.replaceBody(Bun.gzipSync(ctx.response.body));
   */
  replaceBody(bytes: Uint8Array): void {
    if (this.#phase === guarded) throw middlewareAnswerError("replaceBody", this.#exchange.status);
    this.#assertNotStreaming("replaceBody");
    if (bytes.length > 0) assertContentAllowed(this.#exchange.status);
    this.#exchange.clearBody();
    this.#borrowed = false;
    this.#phase = drafted;
    if (bytes.length <= this.#exchange.stagingFree) this.#exchange.write(bytes);
    else {
      this.#exchange.borrowBody(bytes);
      this.#borrowed = true;
    }
  }

  /**
   * Whether the status and headers are final: a stream's first flush sent them, or the request
   * is over. An `after` hook checks it before adding a header, which would then be a `TypeError`.
   */
  get headersSent(): boolean {
    return this.#stream !== undefined ? this.#stream.headersSent : !this.#exchange.live;
  }

  /**
   * Status and a UTF-8 text body (replacing any body); `text/plain; charset=utf-8` unless
   * `header("Content-Type", …)` set a type before (an HTML page: that type, then `text`).
   */
  text(status: number, text: string): void {
    if (typeof status !== "number" || typeof text !== "string") textArgumentsError(status, text);
    this.#assertBodyAllowed("text", status, text.length);
    this.#replaceBody(status, "text/plain; charset=utf-8", false, true);
    this.#exchange.writeText(text);
  }

  /** Status, content type and a body copied from `bytes` (replacing any body). */
  bytes(status: number, contentType: string, bytes: Uint8Array): void {
    if (typeof status !== "number") statusFirstError("bytes", status);
    this.#assertBodyAllowed("bytes", status, bytes.length);
    this.#replaceBody(status, contentType, true);
    this.#exchange.write(bytes);
  }

  /**
   * Status and `value` as JSON, replacing any body; `application/json` unless
   * `header("Content-Type", …)` set a type before (`application/problem+json`, say).
   */
  json(status: number, value: unknown): void {
    if (typeof status !== "number") statusFirstError("json", status);
    this.#assertNotStreaming("json");
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError("corral: json() got a value JSON cannot represent");
    this.#assertBodyAllowed("json", status, text.length);
    this.#replaceBody(status, "application/json", false, true);
    this.#exchange.writeText(text);
  }

  /**
   * Appends formatted text: each `{}` in `format` takes the next value (`{{` and `}}` are
   * literal braces). The type defaults to `text/plain; charset=utf-8`.
   */
  print(format: string, ...values: unknown[]): void {
    if (this.#borrowed) throw borrowedBodyError("print");
    this.#exchange.writeText(formatText(format, values));
    this.#contentType ??= "text/plain; charset=utf-8";
    // Appending replaces nothing: a guarded draft stays guarded.
    if (this.#phase === pristine) this.#phase = drafted;
  }

  /** A redirect (300-308) to `location`, with an empty body. */
  redirect(status: number, location: string): void {
    if (typeof status !== "number") statusFirstError("redirect", status);
    if (this.#phase === guarded) throw middlewareAnswerError("redirect", this.#exchange.status);
    this.#assertNotStreaming("redirect");
    if (this.#borrowed) throw borrowedBodyError("redirect");
    validateRedirect(status, location);
    this.#exchange.clearBody();
    this.#exchange.setStatus(status);
    this.#phase = drafted;
    this.#exchange.setHeader("Location", location);
    this.#contentType = undefined;
    this.#typeFromHeader = false;
  }

  /** Adds a validated `Set-Cookie` (RFC 6265); an invalid name, value or option is a TypeError. */
  setCookie(name: string, value: string, options?: CookieOptions): void {
    this.#assertHeadersOpen();
    this.#exchange.setHeader("Set-Cookie", serializeSetCookie(name, value, options));
  }

  /** Adds a `Set-Cookie` that deletes cookie `name` (`Max-Age=0` and an expiry in the past). */
  deleteCookie(name: string, options?: Parameters<typeof expiredCookie>[1]): void {
    this.#assertHeadersOpen();
    this.#exchange.setHeader("Set-Cookie", expiredCookie(name, options));
  }

  /**
   * Makes `bytes` the whole body without copying it into staging: the caller keeps them alive and
   * unchanged until sent (startup assets, for example). Headers may still be added before or after.
   * The total response limit applies; bodies under 256 bytes may be copied. The body is then
   * final: another body call or `stream()` is a `TypeError`, whatever the size; only another
   * `borrowBody()` replaces it.
   */
  borrowBody(status: number, contentType: string, bytes: Uint8Array): void {
    if (typeof status !== "number") statusFirstError("borrowBody", status);
    this.#assertNotStreaming("borrowBody");
    if (bytes.length > 0) assertContentAllowed(status);
    this.#replaceBody(status, contentType, true);
    this.#exchange.borrowBody(bytes);
    this.#borrowed = true;
  }

  /**
   * Starts a streamed body with `status` and `contentType`; headers may still change until the
   * first flush. Cannot be combined with `borrowBody` (a `TypeError` either way round); to put
   * bytes between streamed chunks, write them with the stream's writer. With `contentLength` the
   * body is exactly that long and goes out after a `Content-Length` instead of chunked (writing
   * past it is a `TypeError`; a handler that returns short of it failed: a 500 before the first
   * flush, a closed connection after it, so the client knows).
   */
  stream(
    status: number,
    contentType: string,
    options?: { readonly contentLength?: number },
  ): Stream {
    if (this.#stream !== undefined) throw new TypeError("corral: the response is already a stream");
    if (this.#phase === guarded) throw middlewareAnswerError("stream", this.#exchange.status);
    // RFC 9110 §15.3.5, §15.3.6, §15.4.5: no content, so no stream (checked before the draft
    // changes).
    if (status === 204 || status === 205 || status === 304) {
      throw new TypeError(`corral: a ${status} response has no content and cannot be streamed`);
    }
    if (this.#borrowed) {
      throw new TypeError("corral: a response with a borrowed body cannot also be streamed");
    }
    validateContentType(contentType);
    this.#exchange.setStatus(status);
    this.#streamStatus = status;
    this.#phase = drafted;
    const engineStream = this.#exchange.stream();
    if (options?.contentLength !== undefined) engineStream.declareLength(options.contentLength);
    this.#exchange.setHeader("Content-Type", contentType);
    this.#contentType = undefined;
    // A declared length is of the bytes as written: a content coding would change it.
    const encoderFor = options?.contentLength === undefined ? this.#encoderFor : undefined;
    this.#stream = new Stream(
      engineStream,
      encoderFor === undefined ? undefined : () => encoderFor(status, contentType),
    );
    this.streamedRequest = `${this.#exchange.method} ${this.#exchange.path}`;
    return this.#stream;
  }

  /**
   * Lets a middleware encode this request's stream, if the handler starts one: `encoderFor`
   * runs at the stream's first use (its first write, window, flush or finish; headers still
   * open, so it may add `Content-Encoding`, and it sees the headers the handler set after
   * `stream()`) and returns the encoder, or `undefined` to send the stream as it is. A stream with a declared
   * `contentLength` is never encoded (the coding would change its length): `encoderFor` is not
   * called for it. Every `flush()` then sends the encoded
   * bytes of all written so far; the encoding ends with `finish()` or `endStreamEncoding()`.
   *
   * @example
   * ctx.response.encodeStream((status, type) => (type.startsWith("text/") ? encoder : undefined));
   */
  encodeStream(
    encoderFor: (status: number, contentType: string) => StreamEncoder | undefined,
  ): void {
    this.#encoderFor = encoderFor;
  }

  /**
   * Writes the last bytes of a stream's encoding (see `encodeStream`) when the handler returned
   * without `finish()`; an `after` hook calls it. Nothing to do otherwise.
   */
  endStreamEncoding(): Promise<void> | undefined {
    return this.#stream?.writer().endEncoding();
  }

  /** Whether `stream()` was called. */
  get streaming(): boolean {
    return this.#stream !== undefined;
  }

  /**
   * The body bytes of the answer: what a stream has written so far (after a content coding,
   * before chunk framing), readable after the request too, for log lines; or, while the request
   * lasts, the drafted body's length.
   */
  get bodyBytes(): number {
    if (this.#stream !== undefined) return this.#stream.bodyBytes;
    return this.#exchange.draftedBodyLength;
  }

  /**
   * @internal Counts `bytes` made for this response toward the engine's young collections (a
   * page rendered to bytes; see `Exchange.countShortLivedBytes`).
   */
  countShortLivedBytes(bytes: number): void {
    this.#exchange.countShortLivedBytes(bytes);
  }

  /**
   * @internal The `before` hooks are done and the handler is next: an answer they drafted
   * without "stop" must not be replaced by it.
   */
  handlerStarts(): void {
    if (this.#phase !== pristine) this.#phase = guarded;
  }

  /** @internal Whether `before` hooks drafted an answer without "stop" that nothing may replace. */
  get guarded(): boolean {
    return this.#phase === guarded;
  }

  /** @internal The handler is done: the `after` hooks may change the answer. */
  handlerEnded(): void {
    if (this.#phase === guarded) this.#phase = drafted;
  }

  /**
   * @internal Writes the drafted Content-Type; called once when the handler is done. A stream
   * short of its declared length is a `TypeError` here: the handler broke its promise.
   */
  finalize(): void {
    if (this.#stream !== undefined) {
      this.#stream.assertComplete();
      return;
    }
    const type = this.#contentType;
    if (type === undefined) return;
    // RFC 9110 §15.4.5: a 304 carries no Content-Type, which a cache would copy onto its entry.
    if (this.#exchange.status !== 304) this.#exchange.setHeader("Content-Type", type);
    this.#contentType = undefined;
  }

  /** @internal Forgets the draft, and a stream not flushed yet (the draft is being discarded). */
  discard(): void {
    this.#contentType = undefined;
    this.#typeFromHeader = false;
    this.#phase = pristine;
    this.#borrowed = false;
    this.#stream = undefined;
  }

  /** Also once a finished stream ended the request: the same error, not a stale-request one. */
  #assertHeadersOpen(): void {
    if (this.#stream?.headersSent) {
      throw new TypeError("corral: headers cannot change after the first flush of a stream");
    }
  }

  #assertBodyAllowed(operation: string, status: number, length: number): void {
    this.#assertNotStreaming(operation);
    if (this.#borrowed) throw borrowedBodyError(operation);
    if (length > 0) assertContentAllowed(status);
  }

  #assertNotStreaming(operation: string): void {
    if (this.#stream === undefined) return;
    if (operation === "borrowBody") {
      throw new TypeError(
        "corral: a streamed response cannot take a borrowed body; write the bytes with the stream's writer",
      );
    }
    throw new TypeError(
      `corral: ${operation}() replaces the body of a response that is a stream; use its writer`,
    );
  }

  /**
   * `defaultType`: `contentType` is the method's own (text, json), which a type set before by
   * `header` overrides; else it is the caller's explicit argument and replaces any.
   */
  #replaceBody(status: number, contentType: string, validate = false, defaultType = false): void {
    if (validate) validateContentType(contentType);
    if (this.#phase === pristine) {
      // The common case, one body per response: nothing to clear, and 200 is already the status.
      if (status !== 200) this.#exchange.setStatus(status);
    } else {
      // Checked here, off the usual path: the same check before the branch cost the App's hello
      // 120 more instructions a request (bench/instructions.ts), here none.
      if (this.#phase === guarded)
        throw middlewareAnswerError("a body method", this.#exchange.status);
      // Cleared first: a 204 or 304 may replace a drafted body.
      this.#exchange.clearBody();
      this.#exchange.setStatus(status);
    }
    this.#phase = drafted;
    if (defaultType && this.#typeFromHeader) return;
    this.#contentType = contentType;
    this.#typeFromHeader = false;
  }
}

const emptyBody = new Uint8Array(0);

function borrowedBodyError(operation: string): TypeError {
  return new TypeError(
    `corral: ${operation}() after borrowBody(): a borrowed body is the whole body; call borrowBody() again to replace it`,
  );
}

/** RFC 9110 §15.3.5, §15.3.6, §15.4.5: a 204, 205 or 304 has no content; a body would be lost. */
function assertContentAllowed(status: number): void {
  // Written out: a helper function here was left uninlined, 31 instructions a request.
  if (status === 204 || status === 205 || status === 304) {
    throw new TypeError(`corral: a ${status} response has no content and cannot take a body`);
  }
}

/** The content type last found valid: most handlers answer with the same one every time. */
let lastValidContentType = "text/plain; charset=utf-8";

function validateContentType(value: string): void {
  if (value === lastValidContentType) return;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code === 0x7f || code > 0xff) {
      throw new TypeError("corral: invalid character in a Content-Type");
    }
  }
  if (value.trim() === "" || value.trim() !== value) {
    throw new TypeError(`corral: invalid Content-Type ${JSON.stringify(value)}`);
  }
  lastValidContentType = value;
}

/**
 * Whether a header name is `Content-Type`, in any case. The length is looked at first: lowering
 * every other name (`Server`, `Cache-Control`) made a new string on every call.
 */
function isContentType(name: string): boolean {
  return name.length === 12 && name.toLowerCase() === "content-type";
}

/**
 * The status comes first in corral (`json(status, value)`), where Hono has `c.json(value,
 * status)` and `c.redirect(location, status)`: a swapped call names the order instead of failing
 * on what the swap made of the arguments.
 */
function statusFirstError(operation: string, status: unknown): never {
  const got = typeof status === "string" ? JSON.stringify(status) : typeof status;
  throw new TypeError(
    `corral: ctx.response.${operation}() takes the status first (${operation}(status, …)), got ${got} as the status`,
  );
}

function textArgumentsError(status: unknown, text: unknown): never {
  if (typeof status !== "number") statusFirstError("text", status);
  throw new TypeError(
    `corral: ctx.response.text(status, text) takes a string, got ${typeof text}; json(status, value) sends other values`,
  );
}

type DraftPhase = 0 | 1 | 2;
const pristine: DraftPhase = 0;
const drafted: DraftPhase = 1;
const guarded: DraftPhase = 2;

function middlewareAnswerError(operation: string, status: number): TypeError {
  const call =
    operation === "a body method"
      ? "a body method (text, json, bytes, borrowBody)"
      : `${operation}()`;
  return new TypeError(
    `corral: ${call} in the handler would replace the answer a before hook drafted ` +
      `(status ${status}) without returning "stop"; a before hook that answers returns "stop", ` +
      "and the handler does not run",
  );
}
