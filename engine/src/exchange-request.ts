import type { Exchange } from "./exchange.ts";
import { latin1String, latin1StringReusing } from "./internal/ascii.ts";
import type { ExchangeHost } from "./internal/exchange-host.ts";
import type { PeerAddress } from "./internal/peer-address.ts";
import { firstQueryValue } from "./internal/query-value.ts";
import { RequestBody } from "./request-body.ts";
import { type BodyTooLargeError, StaleExchangeError } from "./response-errors.ts";

/**
 * The request side of an `Exchange`: the head and body, borrowed from the engine's buffers, and
 * whether the request is still in progress. Every member throws `StaleExchangeError` once the
 * request is over instead of touching memory that later requests use.
 *
 * @example
 * const request: ExchangeRequest = exchange;
 * request.header("host");
 */
export class ExchangeRequest {
  /** @internal The connection the request arrived on. */
  protected readonly host: ExchangeHost;
  readonly #generation: number;
  #controller: AbortController | null = null;
  /** @internal Why the request ended early (the client left, a deadline passed), if it did. */
  protected abortReason: Error | null = null;
  #bodyReader: RequestBody | null = null;
  /** @internal The request body lived in a worker that was given back: it is gone. */
  protected bodyReleased = false;
  #bodyRefused: BodyTooLargeError | null = null;

  /** @internal Made by the engine for each request. */
  constructor(connection: ExchangeHost, generation: number) {
    this.host = connection;
    this.#generation = generation;
  }

  /** Whether the request is still in progress (its views and draft may be used). */
  get live(): boolean {
    return this.host.generation === this.#generation;
  }

  /** @internal The client's departure when that ended the request, else a staleness error. */
  staleError(what: string): Error {
    return this.abortReason ?? new StaleExchangeError(what);
  }

  /** @internal Throws unless the request is still in progress. */
  assertLive(what: string): void {
    if (this.host.generation !== this.#generation) throw this.staleError(what);
  }

  // ---- request ------------------------------------------------------------------------------

  /** The method; the common ones are shared strings, others are made on each call. */
  get method(): string {
    this.assertLive("request");
    const head = this.host.head;
    const start = head.base + head.methodStart;
    const buffer = head.buffer;
    // GET, most requests' method, checked here; the others apart (see methodOf), so that this
    // getter stays small enough for JavaScriptCore to inline it into its caller.
    if (
      head.methodEnd - head.methodStart === 3 &&
      buffer[start] === 0x47 &&
      buffer[start + 1] === 0x45 &&
      buffer[start + 2] === 0x54
    ) {
      return "GET";
    }
    return methodOf(buffer, start, head.methodEnd - head.methodStart);
  }

  /** The request target as sent (origin-form path and query, or another form). */
  get target(): string {
    this.assertLive("request");
    const head = this.host.head;
    return latin1String(head.buffer, head.base + head.targetStart, head.base + head.targetEnd);
  }

  /**
   * The path, still percent-encoded ("/" for an absolute-form target without one, "*" for
   * `OPTIONS *`, the only method the asterisk-form is accepted with).
   */
  get path(): string {
    this.assertLive("request");
    const head = this.host.head;
    if (head.pathEnd === head.pathStart) return "/";
    const connection = this.host;
    connection.lastPath = latin1StringReusing(
      head.buffer,
      head.base + head.pathStart,
      head.base + head.pathEnd,
      connection.lastPath,
    );
    return connection.lastPath;
  }

  /** The query after `?`, still encoded; empty when there is none. */
  get query(): string {
    this.assertLive("request");
    const head = this.host.head;
    if (head.pathEnd >= head.targetEnd) return "";
    const connection = this.host;
    connection.lastQuery = latin1StringReusing(
      head.buffer,
      head.base + head.pathEnd + 1,
      head.base + head.targetEnd,
      connection.lastQuery,
    );
    return connection.lastQuery;
  }

  /** The length of `query`, known without making its string. */
  get queryLength(): number {
    this.assertLive("request");
    const head = this.host.head;
    return head.pathEnd >= head.targetEnd ? 0 : head.targetEnd - head.pathEnd - 1;
  }

  /**
   * The undecoded value of the query's first entry named `name`, found over the request's bytes
   * without making the query's string: what `ParameterRecords.parse(exchange.query)
   * .firstRaw(name)?.valueRaw` gives (pieces between "&"s, empty ones skipped, each split at its
   * first "=", names compared raw), `""` for an entry without "=", undefined when there is none.
   *
   * @example
   * const page = exchange.queryValueRaw("page"); // "2" for /list?page=2
   */
  queryValueRaw(name: string): string | undefined {
    this.assertLive("request");
    const head = this.host.head;
    if (head.pathEnd >= head.targetEnd) return undefined;
    const base = head.base;
    return firstQueryValue(head.buffer, base + head.pathEnd + 1, base + head.targetEnd, name);
  }

  /** The raw target bytes, borrowed (valid while the request lasts). */
  get targetBytes(): Uint8Array {
    this.assertLive("request");
    const head = this.host.head;
    return head.buffer.subarray(head.base + head.targetStart, head.base + head.targetEnd);
  }

  /** Offset of the `?` in `targetBytes`, or its length when there is no query. */
  get queryOffset(): number {
    this.assertLive("request");
    const head = this.host.head;
    return head.pathEnd - head.targetStart;
  }

  /**
   * The peer's IP address as Bun reports it (`"127.0.0.1"`, `"::1"`, `"::ffff:10.0.0.2"` for an
   * IPv4 client of a dual-stack listener); undefined on an in-memory connection. Read from the
   * socket on first use in a connection, then kept: reading it costs nothing until asked.
   * Behind a proxy this is the proxy: trust `Forwarded` only from proxies you run.
   */
  get remoteAddress(): string | undefined {
    return this.#peer().address;
  }

  /** The family of `remoteAddress`: `"IPv4"` or `"IPv6"`; undefined on an in-memory connection. */
  get remoteFamily(): "IPv4" | "IPv6" | undefined {
    return this.#peer().family;
  }

  /** The peer's TCP port; undefined on an in-memory connection. */
  get remotePort(): number | undefined {
    return this.#peer().port;
  }

  #peer(): PeerAddress {
    this.assertLive("request");
    const connection = this.host;
    return connection.peer.readFrom(connection.socket);
  }

  /** 0 for HTTP/1.0, 1 for HTTP/1.1 (and higher 1.x, answered as 1.1). */
  get versionMinor(): number {
    this.assertLive("request");
    return this.host.head.versionMinor;
  }

  /** Number of header field lines. */
  get headerCount(): number {
    this.assertLive("request");
    return this.host.head.headerCount;
  }

  /** The name of header line `index`, as sent. */
  headerName(index: number): string {
    const head = this.#headerHead(index);
    return latin1String(
      head.buffer,
      head.base + head.fieldOffset(index, 0),
      head.base + head.fieldOffset(index, 1),
    );
  }

  /** The value of header line `index`, without surrounding whitespace. */
  headerValue(index: number): string {
    const head = this.#headerHead(index);
    return latin1String(
      head.buffer,
      head.base + head.fieldOffset(index, 2),
      head.base + head.fieldOffset(index, 3),
    );
  }

  /** The value bytes of header line `index`, borrowed. */
  headerValueBytes(index: number): Uint8Array {
    const head = this.#headerHead(index);
    return head.buffer.subarray(
      head.base + head.fieldOffset(index, 2),
      head.base + head.fieldOffset(index, 3),
    );
  }

  /**
   * Index of the first header line named `name` (case-insensitive) at or after line `from`, or
   * -1. Call again from the index after a match to visit repeated lines in order.
   */
  findHeader(name: string, from = 0): number {
    this.assertLive("request");
    const head = this.host.head;
    const buffer = head.buffer;
    for (let index = from; index < head.headerCount; index++) {
      const start = head.base + head.fieldOffset(index, 0);
      const end = head.base + head.fieldOffset(index, 1);
      if (end - start !== name.length) continue;
      let same = true;
      for (let at = 0; at < name.length; at++) {
        const sent = buffer[start + at]!;
        const asked = name.charCodeAt(at);
        // Only letters fold: "^" and "~" (or "@" and "`") differ by the same bit as "A" and "a".
        if (sent !== asked && ((sent | 0x20) !== (asked | 0x20) || !isLetter(sent))) {
          same = false;
          break;
        }
      }
      if (same) return index;
    }
    return -1;
  }

  /** The value of the first header named `name` (case-insensitive), or undefined. */
  header(name: string): string | undefined {
    const index = this.findHeader(name);
    return index < 0 ? undefined : this.headerValue(index);
  }

  /**
   * The request body, borrowed (empty when there is none); chunked bodies arrive decoded. A body
   * the application chose to stream (`streamBodies`) is read with `bodyStream()` instead.
   */
  get body(): Uint8Array {
    this.assertLive("request");
    if (this.#bodyRefused !== null) throw this.#bodyRefused;
    if (this.host.upload.streamed) {
      throw new TypeError("corral: this request's body is streamed: read it with bodyStream()");
    }
    if (this.bodyReleased) {
      throw new TypeError("corral: the request body went with the released worker; read it before");
    }
    return this.host.body;
  }

  /**
   * Why the body was refused, when it was over its limit and the engine option
   * `dispatchOversizedBodies` hands such requests to the handler: reading it throws this error
   * (a streamed read rejects with it). Null for every other request.
   */
  get bodyRefused(): BodyTooLargeError | null {
    return this.#bodyRefused;
  }

  /** @internal The body is over its limit: the request runs without it. */
  refuseBody(refusal: BodyTooLargeError): void {
    this.#bodyRefused = refusal;
  }

  /** Whether this request's body is streamed (`bodyStream()`) rather than buffered (`body`). */
  get bodyStreamed(): boolean {
    this.assertLive("request");
    return this.host.upload.streamed;
  }

  /**
   * The request body as a stream, for a request `streamBodies` chose to stream (TypeError
   * otherwise). The same reader is returned on every call.
   */
  bodyStream(): RequestBody {
    this.assertLive("request");
    if (this.#bodyRefused !== null) throw this.#bodyRefused;
    const upload = this.host.upload;
    if (upload.streamed) {
      this.#bodyReader ??= new RequestBody(this, upload, this.host.head.contentLength);
    } else if (this.#streamsWithoutBody()) {
      this.#bodyReader ??= new RequestBody(this, null, 0);
    } else {
      throw new TypeError("corral: this request's body is buffered: read it with body");
    }
    return this.#bodyReader;
  }

  /**
   * Whether a request without a body (no `Content-Length` or `0`, not chunked) is one that
   * `streamBodies` would stream: the engine asks only when a body comes, and an empty upload to a
   * streaming route reads an empty stream rather than failing as if the route buffered.
   */
  #streamsWithoutBody(): boolean {
    const head = this.host.head;
    if (head.chunked || head.contentLength > 0) return false;
    const streamBodies = this.host.context.streamBodies;
    return streamBodies !== null && streamBodies(this as unknown as Exchange) === true;
  }

  /** Fires when the client goes away or a deadline ends the request. Made on first use. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.abortReason !== null) this.#controller.abort(this.abortReason);
    }
    return this.#controller.signal;
  }

  /** Whether the client left or a deadline ended the request (without making a signal). */
  get aborted(): boolean {
    return this.abortReason !== null;
  }

  /** @internal The client left or a deadline passed. */
  abort(reason: Error): void {
    if (this.abortReason !== null) return;
    this.abortReason = reason;
    this.#controller?.abort(reason);
  }

  #headerHead(index: number) {
    this.assertLive("request");
    const head = this.host.head;
    if (!Number.isInteger(index) || index < 0 || index >= head.headerCount) {
      throw new RangeError(`corral: no header line ${index}`);
    }
    return head;
  }
}

/** A method other than GET: the common ones are shared strings, found by length and first byte. */
function methodOf(buffer: Uint8Array, start: number, length: number): string {
  const candidate =
    length === 3
      ? buffer[start] === 0x47
        ? "GET"
        : "PUT"
      : length === 4
        ? buffer[start] === 0x50
          ? "POST"
          : "HEAD"
        : length === 5
          ? "PATCH"
          : length === 6
            ? "DELETE"
            : length === 7
              ? "OPTIONS"
              : undefined;
  if (candidate !== undefined && methodMatches(buffer, start, candidate)) return candidate;
  return latin1String(buffer, start, start + length);
}

function methodMatches(buffer: Uint8Array, base: number, method: string): boolean {
  for (let index = 0; index < method.length; index++) {
    if (buffer[base + index] !== method.charCodeAt(index)) return false;
  }
  return true;
}

/** Whether `code` is an ASCII letter, either case. */
function isLetter(code: number): boolean {
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}
