import type { Exchange } from "./exchange.ts";
import { loadSendFile } from "./internal/send-file.ts";
import { type StreamFraming, streamDiscardedMessage } from "./internal/stream-framing.ts";

/**
 * A streamed response body. Writes are copied into the worker's fixed staging; `flush()` sends
 * them (chunked on HTTP/1.1, close-delimited on HTTP/1.0, or raw after `Content-Length` once a
 * length is declared) and resolves once the socket took the bytes, or rejects with
 * `ClientGoneError` when the client has gone.
 *
 * @example
 * const stream = exchange.stream();
 * stream.writeText("started\n");
 * await stream.flush();
 * await stream.finish();
 */
export class ResponseStream {
  readonly #exchange: Exchange;
  readonly #framing: StreamFraming;
  #discarded = false;
  #bodyBytes: number;

  /** @internal Made by `exchange.stream()`, once the framing started. */
  constructor(exchange: Exchange, framing: StreamFraming) {
    this.#exchange = exchange;
    this.#framing = framing;
    this.#bodyBytes = framing.bodyBytes;
  }

  /** Bytes of staging free for the next writes. */
  get stagingFree(): number {
    this.#assertUsable();
    return this.#exchange.stagingFree;
  }

  /**
   * Whether the status line and headers are final: sent by the first flush, or the request is
   * over (finished, aborted or timed out).
   */
  get headersSent(): boolean {
    return !this.#exchange.live || this.#framing.headSent;
  }

  /** Copies as much of `bytes` as staging holds; returns the count taken (0 when full: flush). */
  write(bytes: Uint8Array): number {
    this.#assertUsable();
    const taken = this.#framing.write(bytes);
    this.#bodyBytes = this.#framing.bodyBytes;
    return taken;
  }

  /**
   * Body bytes the stream took so far (before chunk framing; a body drafted before `stream()`
   * included). Kept once the request is over, so a log line can say what was sent.
   */
  get bodyBytes(): number {
    return this.#bodyBytes;
  }

  /**
   * Promises a body of exactly `bytes`, before the first flush: the head then carries
   * `Content-Length` instead of chunked framing (HTTP/1.0 clients keep their connection too).
   * Writing past it is a `TypeError`; finishing short of it rejects, and once the head is out
   * the connection closes, so the client sees the body is incomplete. A handler that returns
   * short of it before the head went out is answered 500, as a failed handler is. A HEAD answer
   * is never short.
   */
  declareLength(bytes: number): void {
    this.#assertUsable();
    this.#framing.declareLength(bytes);
  }

  /**
   * What the declared length still misses, in words (`"the stream ends at 3 of its declared 8
   * bytes"`), or undefined: no length declared, the length reached, or a HEAD answer.
   *
   * @example
   * if (stream.shortfall !== undefined) throw new TypeError(`corral: ${stream.shortfall}`);
   */
  get shortfall(): string | undefined {
    return this.#discarded ? undefined : this.#framing.shortfall;
  }

  /**
   * The free part of the worker's staging (capped at what a declared length still allows), to
   * fill in place, by a file read for example, then `commit(count)`: the bytes are never copied.
   * Valid until the next write, commit or flush; the worker keeps its staging while the handler
   * runs, also after the client left.
   */
  stagingWindow(): Uint8Array {
    this.#assertUsable();
    return this.#framing.stagingWindow();
  }

  /** Takes the first `bytes` of `stagingWindow()` as the next part of the body. */
  commit(bytes: number): void {
    this.#assertUsable();
    this.#framing.commit(bytes);
    this.#bodyBytes = this.#framing.bodyBytes;
  }

  /** Copies `text` as UTF-8; throws `ResponseLimitError` when staging cannot hold all of it. */
  writeText(text: string): void {
    this.#assertUsable();
    this.#framing.writeText(text);
    this.#bodyBytes = this.#framing.bodyBytes;
  }

  /**
   * Whether `sendFile` has the kernel's `sendfile` here (Linux), so file bytes never enter the
   * process. Elsewhere it reads them into the worker's staging, synchronously, a piece
   * at a time: staging and asynchronous reads (`stagingWindow`) then suit large files better.
   */
  get sendsFilesInKernel(): boolean {
    return loadSendFile() !== null;
  }

  /**
   * Sends what is written so far, then `length` bytes of the open file `descriptor` from
   * `position`, and resolves when the socket took them all (a slow client makes only this
   * handler wait). The stream must have a declared length. The descriptor must stay open until
   * the promise settles; the file should not change meanwhile: what the kernel sends is the file
   * as it is then, so check it after (size and times) and abort the stream if it changed. A file
   * that ends before `position + length` ends the connection (the client sees a short body).
   *
   * @example
   * stream.declareLength(size);
   * await stream.sendFile(descriptor, 0, size);
   * await stream.finish();
   */
  sendFile(descriptor: number, position: number, length: number): Promise<void> {
    if (!this.#exchange.live) return Promise.reject(this.#exchange.staleError("stream"));
    if (this.#discarded) return Promise.reject(new TypeError(streamDiscardedMessage));
    const sent = this.#framing.sendFile(descriptor, position, length);
    this.#bodyBytes = this.#framing.bodyBytes;
    return sent;
  }

  /** Sends everything written so far; resolves when the socket accepted it. */
  flush(): Promise<void> {
    if (!this.#exchange.live) return Promise.reject(this.#exchange.staleError("stream"));
    if (this.#discarded) return Promise.reject(new TypeError(streamDiscardedMessage));
    return this.#framing.flush(false);
  }

  /** Sends the rest and ends the body; resolves when the socket accepted the last bytes. */
  finish(): Promise<void> {
    if (!this.#exchange.live) return Promise.reject(this.#exchange.staleError("stream"));
    if (this.#discarded) return Promise.reject(new TypeError(streamDiscardedMessage));
    return this.#framing.flush(true);
  }

  /** @internal The exchange's response was reset before the first flush: this stream is dead. */
  discard(): void {
    this.#discarded = true;
  }

  #assertUsable(): void {
    this.#exchange.assertLive("stream");
    if (this.#discarded) throw new TypeError(streamDiscardedMessage);
  }

  /** Ends the response without its terminating chunk and closes the connection. */
  abort(): void {
    if (this.#exchange.live && !this.#discarded) this.#framing.abort();
  }
}
