import type { ExchangeRequest } from "./exchange-request.ts";
import type { StreamedBody } from "./internal/streamed-body.ts";

/**
 * A request body read as it arrives (see `streamBodies` in the engine options): bytes come from
 * the socket only while a read waits, so an upload of any size costs one socket chunk, or one
 * worker window, at a time. Read it with `for await` (each piece borrowed, valid until the next
 * is asked for) or with `read(buffer)` (bytes copied into the caller's buffer). A read rejects
 * with `ClientGoneError` when the client leaves, a deadline passes or the body breaks a limit.
 *
 * @example
 * for await (const piece of exchange.bodyStream()) hash.update(piece);
 */
export class RequestBody implements AsyncIterable<Uint8Array> {
  readonly #exchange: ExchangeRequest;
  /** Null for a request without a body: the stream is over before it starts. */
  readonly #body: StreamedBody | null;
  /** What `read` has not copied yet of the last piece. */
  #rest: Uint8Array = new Uint8Array(0);

  /** @internal Made by `Exchange.bodyStream()`. */
  constructor(exchange: ExchangeRequest, body: StreamedBody | null, declaredLength: number) {
    this.#exchange = exchange;
    this.#body = body;
    this.length = declaredLength;
  }

  /** The declared `Content-Length`, or -1 for a chunked body. */
  readonly length: number;

  /** Body bytes handed over so far. */
  get received(): number {
    this.#exchange.assertLive("request body");
    return this.#body === null ? 0 : this.#body.received;
  }

  /**
   * The next piece, borrowed (valid until the next call), or null at the end of the body. Only
   * one read may wait at a time (TypeError otherwise).
   */
  next(): Promise<Uint8Array | null> {
    if (!this.#exchange.live) return Promise.reject(this.#exchange.staleError("request body"));
    this.#rest = this.#rest.subarray(this.#rest.length);
    return this.#body === null ? Promise.resolve(null) : this.#body.next();
  }

  /** Copies up to `buffer.length` next bytes into `buffer`; resolves to the count, 0 at the end. */
  async read(buffer: Uint8Array): Promise<number> {
    if (!(buffer instanceof Uint8Array) || buffer.length === 0) {
      throw new TypeError("corral: read() needs a non-empty Uint8Array");
    }
    if (this.#rest.length === 0) {
      const piece = await this.next();
      if (piece === null) return 0;
      this.#rest = piece;
    }
    this.#exchange.assertLive("request body");
    const rest = this.#rest;
    const count = Math.min(rest.length, buffer.length);
    buffer.set(rest.subarray(0, count), 0);
    this.#rest = rest.subarray(count);
    return count;
  }

  /** Iterates the pieces: each is borrowed until the loop asks for the next one. */
  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      const piece = await this.next();
      if (piece === null) return;
      yield piece;
    }
  }
}
