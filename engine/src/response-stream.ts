import type { Exchange } from "./exchange.ts";
import { type StreamFraming, streamDiscardedMessage } from "./internal/stream-framing.ts";

/**
 * A streamed response body. Writes are copied into the worker's fixed staging; `flush()` sends
 * them (chunked on HTTP/1.1, close-delimited on HTTP/1.0) and resolves once the socket took the
 * bytes, or rejects with `ClientGoneError` when the client has gone.
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

  /** @internal Made by `exchange.stream()`. */
  constructor(exchange: Exchange, framing: StreamFraming) {
    this.#exchange = exchange;
    this.#framing = framing;
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
    return this.#framing.write(bytes);
  }

  /** Copies `text` as UTF-8; throws `ResponseLimitError` when staging cannot hold all of it. */
  writeText(text: string): void {
    this.#assertUsable();
    this.#framing.writeText(text);
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
