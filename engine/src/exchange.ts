import { ExchangeRequest } from "./exchange-request.ts";
import type { ExchangeHost } from "./internal/exchange-host.ts";
import { ClientGoneError } from "./response-errors.ts";
import { ResponseStream } from "./response-stream.ts";
import type { WebSocketSession } from "./websocket/websocket-session.ts";
import type { WebSocketUpgradeOptions } from "./websocket/websocket-upgrade.ts";

/**
 * One request and its response, handed to the handler. Request data is borrowed from the
 * engine's buffers (`ExchangeRequest`) and the response is drafted in the worker's reserved
 * staging; both are valid only while the request lasts. After that every member throws
 * `StaleExchangeError` instead of touching memory that later requests use.
 *
 * @example
 * listen({ port: 0, handler(exchange) {
 *   exchange.setStatus(200);
 *   exchange.setHeader("Content-Type", "text/plain");
 *   exchange.writeText(`you asked for ${exchange.path}`);
 * } });
 */
export class Exchange extends ExchangeRequest {
  #stream: ResponseStream | null = null;
  /** @internal Whether the handler returned without ending the response (see `detach`). */
  detached = false;

  /** @internal Made by the engine for each request. */
  constructor(connection: ExchangeHost, generation: number) {
    // Written out: a derived class's implicit constructor passes its arguments on as a rest
    // array, and JavaScriptCore allocated that array for every pipelined request.
    super(connection, generation);
  }

  // ---- response -----------------------------------------------------------------------------

  /**
   * Sets the status (200-599). A stream's status is final after its first flush, and a stream is
   * never a 204 or 304; nor is a drafted body (a `TypeError` rather than a body dropped).
   */
  setStatus(status: number): void {
    this.assertLive("response");
    if (this.#stream !== null) this.host.stream.checkStatus(status);
    this.host.draft.setStatus(status);
  }

  /** The status set so far. */
  get status(): number {
    this.assertLive("response");
    return this.host.draft.status;
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
    this.host.draft.appendHeader(name, value);
  }

  /**
   * Copies bytes into the staged body; throws `ResponseLimitError` past `stagingBytes`, and a
   * `TypeError` on a 204 or 304 or after `borrowBody` (whose body is whole: `clearBody` first).
   */
  write(bytes: Uint8Array): void {
    this.assertLive("response");
    if (this.#stream !== null) throw new TypeError("corral: write to the stream, not the exchange");
    this.host.draft.writeBytes(bytes);
  }

  /** Copies text as UTF-8 into the staged body; throws as `write` does. */
  writeText(text: string): void {
    this.assertLive("response");
    if (this.#stream !== null) throw new TypeError("corral: write to the stream, not the exchange");
    this.host.draft.writeText(text);
  }

  /**
   * Counts `bytes` toward the engine's young collections the way text it encodes is counted:
   * for a body made per request by other means (a page rendered straight to bytes), whose making
   * left as much short-lived garbage. Uncounted, that garbage grew between collections and its
   * pages came back as page faults. A negative or fractional count is a `TypeError`.
   */
  countShortLivedBytes(bytes: number): void {
    this.assertLive("response");
    if (!Number.isSafeInteger(bytes) || bytes < 0) {
      throw new TypeError(`corral: countShortLivedBytes needs a whole number >= 0, got ${bytes}`);
    }
    this.host.draft.textBytes += bytes;
  }

  /** Bytes of staging still free. */
  get stagingFree(): number {
    this.assertLive("response");
    return this.host.draft.stagingFree;
  }

  /** Bytes staged so far. */
  get stagedLength(): number {
    this.assertLive("response");
    return this.host.draft.stagedLength;
  }

  /** The drafted body's length in bytes (without making a view of it); 0 for a stream. */
  get draftedBodyLength(): number {
    this.assertLive("response");
    return this.#stream !== null ? 0 : this.host.draft.bodyLength;
  }

  /**
   * The drafted body as it stands, without a copy: a view of the staged bytes (valid until the
   * body changes) or the borrowed bytes. A stream's bytes are not here (a `TypeError`).
   */
  get draftedBody(): Uint8Array {
    this.assertLive("response");
    if (this.#stream !== null) throw new TypeError("corral: a stream has no drafted body");
    return this.host.draft.bodyView;
  }

  /** The drafted value of response header `name` (several lines joined with ", "), if any. */
  responseHeader(name: string): string | undefined {
    this.assertLive("response");
    return this.host.draft.headerValue(name);
  }

  /** Removes every drafted line of response header `name`; a `TypeError` once a stream's head is out. */
  removeResponseHeader(name: string): void {
    this.assertLive("response");
    if (this.#stream?.headersSent) {
      throw new TypeError("corral: headers cannot change after the first flush of a stream");
    }
    this.host.draft.removeHeader(name);
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
    this.host.draft.borrow(bytes);
  }

  /** Empties the body drafted so far (staged or borrowed); status and headers stay. */
  clearBody(): void {
    this.assertLive("response");
    if (this.#stream !== null) throw new TypeError("corral: a started stream cannot be cleared");
    this.host.draft.clearBody();
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
      if (this.host.stream.headSent) {
        throw new TypeError("corral: a stream whose headers were sent cannot be discarded");
      }
      stream.discard();
      this.host.stream.discard();
      this.#stream = null;
    }
    this.host.draft.reset(keepHeaderLength);
  }

  /** How many bytes of response header lines are drafted: a mark for `resetResponse`. */
  get draftedHeaderLength(): number {
    this.assertLive("response");
    return this.host.draft.headerLength;
  }

  /** Closes the connection after this response (sends `Connection: close`). */
  closeAfterResponse(): void {
    this.assertLive("response");
    this.host.draft.closeRequested = true;
  }

  /**
   * Starts a streamed body; headers may change until the first flush. Anything staged leads; a
   * borrowed body (of any size) is a `TypeError`.
   */
  stream(): ResponseStream {
    this.assertLive("response");
    if (this.#stream !== null) return this.#stream;
    this.host.stream.start();
    this.#stream = new ResponseStream(this, this.host.stream);
    return this.#stream;
  }

  // ---- WebSocket ----------------------------------------------------------------------------

  /**
   * Accepts this request's WebSocket handshake (RFC 6455 §4.2.2). The 101 is sent when the
   * handler settles, with the header lines drafted so far (no body); the worker is given back
   * then and the connection speaks WebSocket in its slot. Answer a request that fails
   * `validateHandshake` yourself (400, or 426 with `Sec-WebSocket-Version: 13`); upgrading it is
   * a `TypeError`, as is a `protocol` the client did not offer.
   *
   * @example
   * const session = exchange.upgradeToWebSocket({
   *   handler: { message: (socket, data) => void socket.send(data), close() {} },
   * });
   */
  upgradeToWebSocket(options: WebSocketUpgradeOptions): WebSocketSession {
    this.assertLive("exchange");
    return this.host.webSocket.accept(options);
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
    if (this.host.run.running) {
      throw new TypeError(
        "corral: the handler publishes by returning; publish() is for detached exchanges",
      );
    }
    if (this.host.draft.worker === null) {
      throw new TypeError("corral: acquire a worker before publishing");
    }
    this.host.run.publish();
  }

  /**
   * Gives the worker (and its staging) back while the response waits; nothing may be staged (see
   * `canReleaseWorker`). Header lines drafted and not yet sent are kept (described, or copied
   * out: at most `maxResponseHeaderBytes`) and restored by `acquireWorker()`. A request body
   * stored in the worker (one that did not come in a single socket chunk) goes with it: `body`
   * then throws.
   */
  releaseWorker(): void {
    this.assertLive("exchange");
    if (this.host.draft.worker === null) return;
    if (!this.canReleaseWorker) {
      throw new TypeError("corral: the worker can only be given back with nothing staged");
    }
    if (this.bodyInWorker) this.bodyReleased = true;
    const { lease, stream, draft, context } = this.host;
    lease.releaseWhileWaiting(stream.headSent ? 0 : draft.headerLength);
    context.youngCollection.countWait();
  }

  /**
   * Whether `releaseWorker()` may be called now: a worker is held and no response bytes live in
   * it (nothing staged or borrowed, no stream flush under way), and no streamed request body is
   * still being read (its window is the worker's).
   */
  get canReleaseWorker(): boolean {
    if (!this.live) return false;
    const { draft, stream } = this.host;
    // A streamed body still being read is decoded into the worker's window.
    return (
      draft.worker !== null &&
      !stream.busy &&
      draft.stagedLength === 0 &&
      !draft.hasBorrowed &&
      !this.host.upload.open
    );
  }

  /**
   * Whether the request body lives in the worker's storage (it did not come in one socket
   * chunk), so that giving the worker back takes the body with it.
   */
  get bodyInWorker(): boolean {
    if (!this.live) return false;
    const connection = this.host;
    const worker = connection.draft.worker;
    const body = connection.body;
    return worker !== null && body.length > 0 && body.buffer === worker.body.buffer;
  }

  /** Takes a worker again before writing; rejects with `ClientGoneError` if the client left. */
  acquireWorker(): Promise<void> {
    if (!this.live) return Promise.reject(this.abortReason ?? new ClientGoneError());
    if (this.host.socket === null) return Promise.reject(new ClientGoneError());
    return this.host.lease.reacquire();
  }

  /** Whether this exchange holds a worker now. */
  get hasWorker(): boolean {
    return this.live && this.host.draft.worker !== null;
  }

  /**
   * Whether other requests (or handlers taking theirs back) wait for a worker now: a long-lived
   * handler holding one (a stream catching up) gives it back at its next pause when they do.
   */
  get workerWanted(): boolean {
    return this.host.lease.othersWaiting;
  }
}
