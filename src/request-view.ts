import type { Exchange, RequestBody } from "corral/engine";
import { type CookieEntry, findCookie, parseCookieHeader } from "./cookies/cookie-header.ts";
import { trimWhitespace } from "./field-syntax.ts";
import { DecodeError } from "./params/decode-error.ts";
import { countEntries, countEntryBytes } from "./params/entry-cursor.ts";
import { ParameterLimitError } from "./params/parameter-limit-error.ts";
import { ParameterRecords } from "./params/parameter-records.ts";
import { type MultipartPart, parseMultipart } from "./request/multipart.ts";
import { MultipartStream } from "./request/multipart-stream.ts";
import { type RemoteAddress, remoteAddressOf } from "./request/remote-address.ts";

/** Limits of the request views that the App, not the engine, enforces. */
export interface RequestViewLimits {
  /** Entries in a query, and in a URL-encoded form body; past it `query()`/`form()` throw (400). */
  readonly maxParameters: number;
  readonly maxMultipartParts: number;
  readonly maxMultipartPartHeaderBytes: number;
}

const textDecoder = new TextDecoder("utf-8", { fatal: true });

/** What a request view parses or learns only for some requests, cached once it is. */
class SeldomViewState {
  form: ParameterRecords | undefined = undefined;
  multipart: readonly MultipartPart[] | undefined = undefined;
  /** One reader for the one body stream: a second parser would start in the middle of it. */
  multipartStream: MultipartStream | undefined = undefined;
  cookies: CookieEntry[] | undefined = undefined;
  json: { readonly value: unknown } | undefined = undefined;
  remoteAddress: RemoteAddress | undefined | null = null;
  /** Where the body should have been read, once the worker holding it was given back. */
  bodyReleasedHint: string | undefined = undefined;
}

/**
 * The request as the handler sees it. Everything is borrowed from the engine's buffers and valid
 * only until the handler returns: afterwards every member throws a `TypeError` saying so. Query,
 * form, multipart and cookies are parsed on first use and cached.
 *
 * @example
 * const name = ctx.request.query().firstRaw("name")?.valueRaw;
 */
export class RequestView {
  readonly #exchange: Exchange;
  readonly #limits: RequestViewLimits;
  #active = true;
  #query: ParameterRecords | undefined;
  /** Made on first use: most requests read none of it, and a smaller view is cheaper to make. */
  #seldom: SeldomViewState | undefined;

  /** @internal Made by the App for each request. */
  constructor(exchange: Exchange, limits: RequestViewLimits) {
    this.#exchange = exchange;
    this.#limits = limits;
  }

  /** @internal Throws unless the handler is still running. */
  assertLive(): void {
    if (!this.#active || !this.#exchange.live) {
      throw new TypeError(
        "corral: ctx.request used after the handler returned; copy what you need",
      );
    }
  }

  /** @internal The handler returned: the views are closed. */
  end(): void {
    this.#active = false;
  }

  /**
   * @internal The worker holding the body was given back (a waiting continuation, an off-worker
   * wait); `readItWhere` says where the handler should have read it.
   */
  releaseBody(readItWhere: string): void {
    this.#seldomState().bodyReleasedHint = readItWhere;
  }

  #seldomState(): SeldomViewState {
    this.#seldom ??= new SeldomViewState();
    return this.#seldom;
  }

  #assertBodyLive(): void {
    this.assertLive();
    const hint = this.#seldom?.bodyReleasedHint;
    if (hint !== undefined) {
      throw new TypeError(`corral: the request body went with the engine worker; read it ${hint}`);
    }
  }

  /** The method, e.g. "GET". */
  get method(): string {
    this.assertLive();
    return this.#exchange.method;
  }

  /** The path, still percent-encoded, without the query. */
  get path(): string {
    this.assertLive();
    return this.#exchange.path;
  }

  /** The request target as sent. */
  get target(): string {
    this.assertLive();
    return this.#exchange.target;
  }

  /** The raw query text after `?` ("" when there is none). */
  get queryString(): string {
    this.assertLive();
    return this.#exchange.query;
  }

  /**
   * The peer of the connection: `{ address, family, port }` as the socket reports it (behind a
   * proxy, the proxy). Undefined for a request made in process with `app.request()`.
   */
  get remoteAddress(): RemoteAddress | undefined {
    this.assertLive();
    const seldom = this.#seldomState();
    if (seldom.remoteAddress === null) seldom.remoteAddress = remoteAddressOf(this.#exchange);
    return seldom.remoteAddress;
  }

  /** The first header named `name` (case-insensitive), or undefined. */
  header(name: string): string | undefined {
    this.assertLive();
    if (typeof name !== "string") {
      throw new TypeError(
        `corral: ctx.request.header(name) takes a field name, got ${String(name)}`,
      );
    }
    return this.#exchange.header(name);
  }

  /** Every header line in order, as `[name, value]` pairs. */
  headers(): Array<[string, string]> {
    this.assertLive();
    const exchange = this.#exchange;
    const lines: Array<[string, string]> = [];
    for (let index = 0; index < exchange.headerCount; index++) {
      lines.push([exchange.headerName(index), exchange.headerValue(index)]);
    }
    return lines;
  }

  /**
   * The body read as it arrives, for a route registered with `{ body: "stream" }` (a TypeError
   * otherwise, and `body`, `text()`, `json()`, `form()` are TypeErrors on such a route): pieces
   * borrowed one at a time, or `read(buffer)`; see `RequestBody`.
   */
  bodyStream(): RequestBody {
    this.#assertBodyLive();
    return this.#exchange.bodyStream();
  }

  /** The body bytes, borrowed. */
  get body(): Uint8Array {
    this.#assertBodyLive();
    return this.#exchange.body;
  }

  /** The body as UTF-8 text; invalid UTF-8 is a `DecodeError` (400). */
  text(): string {
    // Outside the try: a body used too late is a TypeError, not a decoding failure.
    const body = this.body;
    try {
      return textDecoder.decode(body);
    } catch {
      throw new DecodeError("invalidUtf8", "the request body is not valid UTF-8");
    }
  }

  /**
   * The body parsed as JSON (RFC 8259). Its `Content-Type` must be `application/json` or end in
   * `+json` (RFC 6839), else a `MediaTypeError` (415): a browser sends no other type across
   * origins without asking first (a CORS preflight), so a cross-site form cannot post JSON to a
   * route that reads it here. Invalid UTF-8 or invalid JSON (an empty body too) is a
   * `DecodeError`, answered 400. The body limit bounds its size. Parsed on first use and cached,
   * so later calls return the same value.
   */
  json(): unknown {
    const known = this.#seldom?.json;
    if (known !== undefined) return known.value;
    this.#assertBodyLive();
    const type = this.#contentType();
    if (type !== "application/json" && !isJsonSuffixType(type)) {
      throw new MediaTypeError("application/json", type);
    }
    const text = this.text();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new DecodeError("invalidJson", `the request body is not JSON: ${messageOf(error)}`);
    }
    this.#seldomState().json = { value };
    return value;
  }

  /**
   * The undecoded value of the query's first entry named `name` (names compared raw), `""` for
   * an entry without `=`, or `undefined` when there is none: `query().firstRaw(name)?.valueRaw`,
   * found over the request's bytes without making the records or an entry (about 5% of a small
   * request's time, measured in-process). More than `maxParameters` entries is a
   * `ParameterLimitError` (400), as for `query()`. Decode explicitly (`params.percentDecodeText`).
   *
   * @example
   * const page = ctx.request.queryValueRaw("page") ?? "1";
   */
  queryValueRaw(name: string): string | undefined {
    this.assertLive();
    if (typeof name !== "string") {
      throw new TypeError(
        `corral: ctx.request.queryValueRaw(name) takes a parameter name, got ${String(name)}`,
      );
    }
    // Only a query long enough to hold more entries than the limit is counted, by query(), once.
    if (this.#query === undefined && this.#exchange.queryLength > 2 * this.#limits.maxParameters) {
      this.query();
    }
    return this.#exchange.queryValueRaw(name);
  }

  /** The query as ordered raw entries; more than `maxParameters` is a `ParameterLimitError`. */
  query(): ParameterRecords {
    this.assertLive();
    if (this.#query === undefined) {
      const exchange = this.#exchange;
      const limit = this.#limits.maxParameters;
      // n non-empty entries take at least 2n - 1 characters, so shorter text cannot pass the limit
      // and needs no count: the usual short query pays nothing, not even its string.
      if (exchange.queryLength > 2 * limit && countEntries(exchange.query, limit) > limit) {
        throw new ParameterLimitError("query", limit);
      }
      this.#query = ParameterRecords.ofRequestQuery(exchange, this);
    }
    return this.#query;
  }

  /**
   * An `application/x-www-form-urlencoded` body as ordered raw entries; another type is a 415,
   * more than `maxParameters` entries a `ParameterLimitError` (400).
   */
  form(): ParameterRecords {
    this.assertLive();
    // The parsed records are made from a copy of the body, so they outlive a released body.
    const known = this.#seldom?.form;
    if (known !== undefined) return known;
    this.#assertBodyLive();
    const type = this.#contentType();
    if (type !== "application/x-www-form-urlencoded") {
      throw new MediaTypeError("application/x-www-form-urlencoded", type);
    }
    const body = this.#exchange.body;
    const limit = this.#limits.maxParameters;
    // Counted on the bytes: a body over the limit is refused before any string is made of it.
    if (body.length > 2 * limit && countEntryBytes(body, limit) > limit) {
      throw new ParameterLimitError("form", limit);
    }
    // Read through a view, not a copy: one Latin-1 string of the body's own size, no more.
    const raw = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("latin1");
    const form = ParameterRecords.parse(raw, this);
    this.#seldomState().form = form;
    return form;
  }

  /**
   * A `multipart/form-data` body as one flat list of fields and files, validated whole before the
   * first item is returned; a malformed body is a `MultipartError` (400). Part bytes are borrowed.
   */
  multipart(): readonly MultipartPart[] {
    this.#assertBodyLive();
    const seldom = this.#seldomState();
    if (seldom.multipart === undefined) {
      const header = this.#exchange.header("content-type") ?? "";
      if (this.#contentType() !== "multipart/form-data") {
        throw new MediaTypeError("multipart/form-data", this.#contentType());
      }
      const parts = parseMultipart(this.#exchange.body, header, {
        maxParts: this.#limits.maxMultipartParts,
        maxPartHeaderBytes: this.#limits.maxMultipartPartHeaderBytes,
      });
      seldom.multipart = parts.map((part) => borrowedPart(part, () => this.#assertBodyLive()));
    }
    return seldom.multipart;
  }

  /**
   * A `multipart/form-data` body read as it arrives, for a route with `{ body: "stream" }`: parts
   * in order, each part's headers validated as in `multipart()` and its content streamed with
   * `part.content()`. The part count and part-header limits hold; a malformed body rejects the
   * read in progress with `MultipartError` (400 when nothing was sent yet). Another media type
   * is a `MediaTypeError` (415). Every call returns the same reader, which goes on where the last
   * loop stopped; calling it after `bodyStream()` handed out bytes is a `TypeError`.
   */
  multipartStream(): MultipartStream {
    this.#assertBodyLive();
    const seldom = this.#seldomState();
    if (seldom.multipartStream !== undefined) return seldom.multipartStream;
    if (this.#contentType() !== "multipart/form-data") {
      throw new MediaTypeError("multipart/form-data", this.#contentType());
    }
    const body = this.#exchange.bodyStream();
    // A parser started after the first bytes would see no opening delimiter: a 400 blaming the
    // client for the handler's mistake.
    if (body.received > 0) {
      throw new TypeError(
        "corral: multipartStream() after bodyStream() read part of the body; use one of them",
      );
    }
    seldom.multipartStream = new MultipartStream(
      body,
      this.#exchange.header("content-type") ?? "",
      {
        maxParts: this.#limits.maxMultipartParts,
        maxPartHeaderBytes: this.#limits.maxMultipartPartHeaderBytes,
      },
    );
    return seldom.multipartStream;
  }

  /**
   * The request's cookies in order (raw values), parsed from the Cookie header; several Cookie
   * lines are read as one, in order.
   */
  cookies(): readonly CookieEntry[] {
    this.assertLive();
    const seldom = this.#seldomState();
    seldom.cookies ??= parseCookieHeader(this.#cookieHeader());
    return seldom.cookies;
  }

  /**
   * Every Cookie line joined in order with "; ": a gateway from HTTP/2 may split the cookies
   * into several lines (RFC 9113 §8.2.3), and reading only the first would lose the rest.
   */
  #cookieHeader(): string {
    const exchange = this.#exchange;
    let joined = "";
    for (
      let index = exchange.findHeader("cookie");
      index >= 0;
      index = exchange.findHeader("cookie", index + 1)
    ) {
      const value = exchange.headerValue(index);
      joined = joined === "" ? value : `${joined}; ${value}`;
    }
    return joined;
  }

  /** The raw value of the first cookie named `name`, or undefined. */
  cookie(name: string): string | undefined {
    return findCookie(this.cookies(), name);
  }

  #contentType(): string {
    const header = this.#exchange.header("content-type") ?? "";
    const semicolon = header.indexOf(";");
    // RFC 9110 §5.6.3: only SP and HTAB are whitespace around a field's parts (not U+00A0).
    return trimWhitespace(semicolon < 0 ? header : header.slice(0, semicolon)).toLowerCase();
  }
}

/** The body is not of the media type the handler asked for; answered 415. */
export class MediaTypeError extends Error {
  /** The App answers it with this status (see `StatusError`). */
  readonly httpStatus = 415;

  constructor(expected: string, got: string) {
    super(`expected ${articleFor(expected)} ${expected} body, got ${got === "" ? "none" : got}`);
    this.name = "MediaTypeError";
  }
}

/** `application/problem+json` and the like (RFC 6839 §3.1): JSON under another name. */
function isJsonSuffixType(type: string): boolean {
  const slash = type.indexOf("/");
  return slash > 0 && type.endsWith("+json") && type.length > slash + 1 + "+json".length;
}

function articleFor(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function borrowedPart(part: MultipartPart, assertLive: () => void): MultipartPart {
  return {
    name: part.name,
    filename: part.filename,
    contentType: part.contentType,
    get bytes() {
      assertLive();
      return part.bytes;
    },
  };
}
