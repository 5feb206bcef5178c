import { latin1String, latin1StringReusing } from "./internal/ascii.ts";
import type { ExchangeHost } from "./internal/exchange-host.ts";
import type { PeerAddress } from "./internal/peer-address.ts";
import type { WorkerSlot } from "./internal/worker-table.ts";
import { RequestBody } from "./request-body.ts";
import { ClientGoneError, StaleExchangeError } from "./response-errors.ts";
import { ResponseStream } from "./response-stream.ts";

/**
 * One request and its response, handed to the handler. Request data is borrowed from the
 * engine's buffers and the response is drafted in the worker's reserved staging; both are valid
 * only while the request lasts. After that every member throws `StaleExchangeError` instead of
 * touching memory that later requests use.
 *
 * @example
 * listen({ port: 0, handler(exchange) {
 *   exchange.setStatus(200);
 *   exchange.setHeader("Content-Type", "text/plain");
 *   exchange.writeText(`you asked for ${exchange.path}`);
 * } });
 */
export class Exchange {
  readonly #connection: ExchangeHost;
  readonly #generation: number;
  #controller: AbortController | null = null;
  #abortReason: Error | null = null;
  #stream: ResponseStream | null = null;
  /** Header lines drafted but not sent, kept while the worker that held them is given back. */
  #heldHeaderLines: Uint8Array | null = null;
  #bodyReader: RequestBody | null = null;
  /** The request body lived in a worker that was given back: it is gone. */
  #bodyReleased = false;
  /** @internal A worker left to a handler that outlived its request. */
  abandonedWorker: WorkerSlot | null = null;
  /** @internal Whether the handler returned without ending the response (see `detach`). */
  detached = false;

  /** @internal Made by the engine for each request. */
  constructor(connection: ExchangeHost, generation: number) {
    this.#connection = connection;
    this.#generation = generation;
  }

  /** Whether the request is still in progress (its views and draft may be used). */
  get live(): boolean {
    return this.#connection.generation === this.#generation;
  }

  /** @internal The client's departure when that ended the request, else a staleness error. */
  staleError(what: string): Error {
    return this.#abortReason ?? new StaleExchangeError(what);
  }

  /** @internal Throws unless the request is still in progress. */
  assertLive(what: string): void {
    if (this.#connection.generation !== this.#generation) throw this.staleError(what);
  }

  // ---- request ------------------------------------------------------------------------------

  /** The method; the common ones are shared strings, others are made on each call. */
  get method(): string {
    this.assertLive("request");
    const head = this.#connection.head;
    const start = head.base + head.methodStart;
    const length = head.methodEnd - head.methodStart;
    const buffer = head.buffer;
    // The common methods are shared strings, found by length and first byte.
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

  /** The request target as sent (origin-form path and query, or another form). */
  get target(): string {
    this.assertLive("request");
    const head = this.#connection.head;
    return latin1String(head.buffer, head.base + head.targetStart, head.base + head.targetEnd);
  }

  /**
   * The path, still percent-encoded ("/" for an absolute-form target without one, "*" for
   * `OPTIONS *`, the only method the asterisk-form is accepted with).
   */
  get path(): string {
    this.assertLive("request");
    const head = this.#connection.head;
    if (head.pathEnd === head.pathStart) return "/";
    const connection = this.#connection;
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
    const head = this.#connection.head;
    if (head.pathEnd >= head.targetEnd) return "";
    const connection = this.#connection;
    connection.lastQuery = latin1StringReusing(
      head.buffer,
      head.base + head.pathEnd + 1,
      head.base + head.targetEnd,
      connection.lastQuery,
    );
    return connection.lastQuery;
  }

  /** The raw target bytes, borrowed (valid while the request lasts). */
  get targetBytes(): Uint8Array {
    this.assertLive("request");
    const head = this.#connection.head;
    return head.buffer.subarray(head.base + head.targetStart, head.base + head.targetEnd);
  }

  /** Offset of the `?` in `targetBytes`, or its length when there is no query. */
  get queryOffset(): number {
    this.assertLive("request");
    const head = this.#connection.head;
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
    const connection = this.#connection;
    return connection.peer.readFrom(connection.socket);
  }

  /** 0 for HTTP/1.0, 1 for HTTP/1.1 (and higher 1.x, answered as 1.1). */
  get versionMinor(): number {
    this.assertLive("request");
    return this.#connection.head.versionMinor;
  }

  /** Number of header field lines. */
  get headerCount(): number {
    this.assertLive("request");
    return this.#connection.head.headerCount;
  }

  /** The name of header line `index`, as sent. */
  headerName(index: number): string {
    const head = this.#headerHead(index);
    const offsets = head.headerOffsets;
    return latin1String(
      head.buffer,
      head.base + offsets[index * 4]!,
      head.base + offsets[index * 4 + 1]!,
    );
  }

  /** The value of header line `index`, without surrounding whitespace. */
  headerValue(index: number): string {
    const head = this.#headerHead(index);
    const offsets = head.headerOffsets;
    return latin1String(
      head.buffer,
      head.base + offsets[index * 4 + 2]!,
      head.base + offsets[index * 4 + 3]!,
    );
  }

  /** The value bytes of header line `index`, borrowed. */
  headerValueBytes(index: number): Uint8Array {
    const head = this.#headerHead(index);
    const offsets = head.headerOffsets;
    return head.buffer.subarray(
      head.base + offsets[index * 4 + 2]!,
      head.base + offsets[index * 4 + 3]!,
    );
  }

  /**
   * Index of the first header line named `name` (case-insensitive) at or after line `from`, or
   * -1. Call again from the index after a match to visit repeated lines in order.
   */
  findHeader(name: string, from = 0): number {
    this.assertLive("request");
    const head = this.#connection.head;
    const offsets = head.headerOffsets;
    const buffer = head.buffer;
    for (let index = from; index < head.headerCount; index++) {
      const start = head.base + offsets[index * 4]!;
      const end = head.base + offsets[index * 4 + 1]!;
      if (end - start !== name.length) continue;
      let same = true;
      for (let at = 0; at < name.length; at++) {
        if ((buffer[start + at]! | 0x20) !== (name.charCodeAt(at) | 0x20)) {
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
    if (this.#connection.upload.streamed) {
      throw new TypeError("corral: this request's body is streamed: read it with bodyStream()");
    }
    if (this.#bodyReleased) {
      throw new TypeError("corral: the request body went with the released worker; read it before");
    }
    return this.#connection.body;
  }

  /** Whether this request's body is streamed (`bodyStream()`) rather than buffered (`body`). */
  get bodyStreamed(): boolean {
    this.assertLive("request");
    return this.#connection.upload.streamed;
  }

  /**
   * The request body as a stream, for a request `streamBodies` chose to stream (TypeError
   * otherwise). The same reader is returned on every call.
   */
  bodyStream(): RequestBody {
    this.assertLive("request");
    const upload = this.#connection.upload;
    if (!upload.streamed) {
      throw new TypeError("corral: this request's body is buffered: read it with body");
    }
    this.#bodyReader ??= new RequestBody(this, upload, this.#connection.head.contentLength);
    return this.#bodyReader;
  }

  /** Fires when the client goes away or a deadline ends the request. Made on first use. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#abortReason !== null) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  /** Whether the client left or a deadline ended the request (without making a signal). */
  get aborted(): boolean {
    return this.#abortReason !== null;
  }

  /** @internal The client left or a deadline passed. */
  abort(reason: Error): void {
    if (this.#abortReason !== null) return;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }

  // ---- response -----------------------------------------------------------------------------

  /**
   * Sets the status (200-599). A stream's status is final after its first flush, and a stream is
   * never a 204 or 304; nor is a drafted body (a `TypeError` rather than a body dropped).
   */
  setStatus(status: number): void {
    this.assertLive("response");
    if (this.#stream !== null) this.#connection.stream.checkStatus(status);
    this.#connection.draft.setStatus(status);
  }

  /** The status set so far. */
  get status(): number {
    this.assertLive("response");
    return this.#connection.draft.status;
  }

  /**
   * Adds a header line. Names must be tokens and values free of CR, LF and controls (TypeError).
   * Content-Length and Transfer-Encoding are the engine's; `Connection: close` closes after this
   * response. Throws `ResponseLimitError` past `maxResponseHeaderBytes`.
   */
  setHeader(name: string, value: string): void {
    this.assertLive("response");
    if (this.#stream?.headersSent) {
      throw new TypeError("corral: headers cannot change after the first flush of a stream");
    }
    this.#connection.draft.appendHeader(name, value);
  }

  /**
   * Copies bytes into the staged body; throws `ResponseLimitError` past `stagingBytes`, and a
   * `TypeError` on a 204 or 304 or after `borrowBody` (whose body is whole: `clearBody` first).
   */
  write(bytes: Uint8Array): void {
    this.assertLive("response");
    if (this.#stream !== null) throw new TypeError("corral: write to the stream, not the exchange");
    this.#connection.draft.writeBytes(bytes);
  }

  /** Copies text as UTF-8 into the staged body; throws as `write` does. */
  writeText(text: string): void {
    this.assertLive("response");
    if (this.#stream !== null) throw new TypeError("corral: write to the stream, not the exchange");
    this.#connection.draft.writeText(text);
  }

  /** Bytes of staging still free. */
  get stagingFree(): number {
    this.assertLive("response");
    return this.#connection.draft.stagingFree;
  }

  /** Bytes staged so far. */
  get stagedLength(): number {
    this.assertLive("response");
    return this.#connection.draft.stagedLength;
  }

  /**
   * The drafted body as it stands, without a copy: a view of the staged bytes (valid until the
   * body changes) or the borrowed bytes. A stream's bytes are not here (a `TypeError`).
   */
  get draftedBody(): Uint8Array {
    this.assertLive("response");
    if (this.#stream !== null) throw new TypeError("corral: a stream has no drafted body");
    return this.#connection.draft.bodyView;
  }

  /** The drafted value of response header `name` (several lines joined with ", "), if any. */
  responseHeader(name: string): string | undefined {
    this.assertLive("response");
    return this.#connection.draft.headerValue(name);
  }

  /** Removes every drafted line of response header `name`; a `TypeError` once a stream's head is out. */
  removeResponseHeader(name: string): void {
    this.assertLive("response");
    if (this.#stream?.headersSent) {
      throw new TypeError("corral: headers cannot change after the first flush of a stream");
    }
    this.#connection.draft.removeHeader(name);
  }

  /**
   * Makes `bytes` the whole body without copying: they are written to the socket from where they
   * are, so they must stay unchanged until sent. Bodies under `borrowCopyThresholdBytes` are
   * copied, with the same rules: a borrowed body is never streamed nor appended to. Throws
   * `ResponseLimitError` past `maxResponseBytes`, and a `TypeError` on a 204 or 304.
   */
  borrowBody(bytes: Uint8Array): void {
    this.assertLive("response");
    if (this.#stream !== null) {
      throw new TypeError("corral: a streamed response cannot take a borrowed body");
    }
    this.#connection.draft.borrow(bytes);
  }

  /** Empties the body drafted so far (staged or borrowed); status and headers stay. */
  clearBody(): void {
    this.assertLive("response");
    if (this.#stream !== null) throw new TypeError("corral: a started stream cannot be cleared");
    this.#connection.draft.clearBody();
  }

  /**
   * Discards the draft: status back to 200, no headers, no body (before error mapping). A stream
   * whose first flush has not happened is discarded too (the client has seen nothing of it): its
   * writes and flushes throw from then on. After the first flush this is a `TypeError`.
   * `keepHeaderLength` (a `draftedHeaderLength` read earlier) keeps the header lines drafted
   * until then, e.g. those middleware set before the handler ran.
   */
  resetResponse(keepHeaderLength = 0): void {
    this.assertLive("response");
    const stream = this.#stream;
    if (stream !== null) {
      if (this.#connection.stream.headSent) {
        throw new TypeError("corral: a stream whose headers were sent cannot be discarded");
      }
      stream.discard();
      this.#connection.stream.discard();
      this.#stream = null;
    }
    this.#connection.draft.reset(keepHeaderLength);
  }

  /** How many bytes of response header lines are drafted: a mark for `resetResponse`. */
  get draftedHeaderLength(): number {
    this.assertLive("response");
    return this.#connection.draft.headerLength;
  }

  /** Closes the connection after this response (sends `Connection: close`). */
  closeAfterResponse(): void {
    this.assertLive("response");
    this.#connection.draft.closeRequested = true;
  }

  /**
   * Starts a streamed body; headers may change until the first flush. Anything staged leads; a
   * borrowed body (of any size) is a `TypeError`.
   */
  stream(): ResponseStream {
    this.assertLive("response");
    if (this.#stream !== null) return this.#stream;
    this.#connection.stream.start();
    this.#stream = new ResponseStream(this, this.#connection.stream);
    return this.#stream;
  }

  // ---- long-lived responses -----------------------------------------------------------------

  /**
   * Keeps the response open after the handler returns: the engine neither publishes the draft
   * nor finishes the stream; call `publish()` or `stream.finish()` later.
   */
  detach(): void {
    this.assertLive("exchange");
    this.detached = true;
  }

  /** Sends the drafted response of a detached exchange. */
  publish(): void {
    this.assertLive("exchange");
    if (this.#stream !== null) throw new TypeError("corral: finish the stream instead");
    if (this.#connection.handlerRunning) {
      throw new TypeError(
        "corral: the handler publishes by returning; publish() is for detached exchanges",
      );
    }
    if (this.#connection.draft.worker === null) {
      throw new TypeError("corral: acquire a worker before publishing");
    }
    this.#connection.publish();
  }

  /**
   * Gives the worker (and its staging) back while the response waits; nothing may be staged (see
   * `canReleaseWorker`). Header lines drafted and not yet sent are kept (copied out, at most
   * `maxResponseHeaderBytes`) and restored by `acquireWorker()`. A request body stored in the
   * worker (one that did not come in a single socket chunk) goes with it: `body` then throws.
   */
  releaseWorker(): void {
    this.assertLive("exchange");
    const connection = this.#connection;
    const { draft, stream } = connection;
    const worker = draft.worker;
    if (worker === null) return;
    if (!this.canReleaseWorker) {
      throw new TypeError("corral: the worker can only be given back with nothing staged");
    }
    if (draft.headerLength > 0 && !stream.headSent) {
      this.#heldHeaderLines = worker.headerLines.slice(0, draft.headerLength);
    }
    if (connection.body.length > 0 && connection.body.buffer === worker.body.buffer) {
      this.#bodyReleased = true;
    }
    connection.releaseWorker();
  }

  /**
   * Whether `releaseWorker()` may be called now: a worker is held and no response bytes live in
   * it (nothing staged or borrowed, no stream flush under way), and no streamed request body is
   * still being read (its window is the worker's).
   */
  get canReleaseWorker(): boolean {
    if (!this.live) return false;
    const { draft, stream } = this.#connection;
    // A streamed body still being read is decoded into the worker's window.
    return (
      draft.worker !== null &&
      !stream.busy &&
      draft.stagedLength === 0 &&
      !draft.hasBorrowed &&
      !this.#connection.upload.open
    );
  }

  /** Takes a worker again before writing; rejects with `ClientGoneError` if the client left. */
  acquireWorker(): Promise<void> {
    if (!this.live) return Promise.reject(this.#abortReason ?? new ClientGoneError());
    const acquired = this.#connection.acquireWorker();
    if (this.#heldHeaderLines === null) return acquired;
    return acquired.then(() => this.#restoreHeaderLines());
  }

  #restoreHeaderLines(): void {
    const held = this.#heldHeaderLines;
    this.#heldHeaderLines = null;
    this.assertLive("exchange");
    const worker = this.#connection.draft.worker;
    if (held !== null && worker !== null) worker.headerLines.set(held, 0);
  }

  /** Whether this exchange holds a worker now. */
  get hasWorker(): boolean {
    return this.live && this.#connection.draft.worker !== null;
  }

  #headerHead(index: number) {
    this.assertLive("request");
    const head = this.#connection.head;
    if (!Number.isInteger(index) || index < 0 || index >= head.headerCount) {
      throw new RangeError(`corral: no header line ${index}`);
    }
    return head;
  }
}

function methodMatches(buffer: Uint8Array, base: number, method: string): boolean {
  for (let index = 0; index < method.length; index++) {
    if (buffer[base + index] !== method.charCodeAt(index)) return false;
  }
  return true;
}
