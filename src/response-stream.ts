import type { ResponseStream } from "corral/engine";
import { formatText } from "./format-text.ts";
import type { StreamEncoder } from "./response/stream-encoder.ts";
import { nextTurn } from "./waiting/next-turn.ts";

const textEncoder = new TextEncoder();

/**
 * Writes one writer takes in a row before its handler waits for the next turn of the event loop.
 * A write that fits in staging settles at once, and so does a flush the socket takes at once: a
 * fast reader of a stream of small writes (the guide's `/numbers`) kept one turn going for most
 * of a second, and every other client waited that long.
 */
export const writesPerTurn = 256;

/**
 * Writes to a streamed response. Bytes are copied into the worker's fixed staging; a write larger
 * than the free staging waits for a flush instead of growing anything. `flush()` resolves once the
 * socket accepted the bytes (a slow reader makes the handler wait, nobody else) and rejects with
 * `ClientGoneError` when the client has left.
 *
 * @example
 * const writer = ctx.response.stream(200, "text/plain; charset=utf-8").writer();
 * await writer.writeAll("started\n");
 * await writer.flush();
 */
export class StreamWriter {
  readonly #stream: ResponseStream;
  /**
   * Chooses the content coding (see `ResponseDraft.encodeStream`) at the stream's first use, not
   * at `stream()`: a handler sets its headers (`Cache-Control: no-transform`) or opts out
   * between the two. Undefined once chosen.
   */
  #chooseEncoder: (() => StreamEncoder | undefined) | undefined;
  #encoder: StreamEncoder | undefined = undefined;
  #writesInRow = 0;

  /** @internal Made by `Stream.writer()`. */
  constructor(stream: ResponseStream, chooseEncoder?: () => StreamEncoder | undefined) {
    this.#stream = stream;
    this.#chooseEncoder = chooseEncoder;
  }

  /** The encoder of the stream's content coding, chosen at the first call. */
  #encoding(): StreamEncoder | undefined {
    const choose = this.#chooseEncoder;
    if (choose === undefined) return this.#encoder;
    this.#chooseEncoder = undefined;
    this.#encoder = choose();
    return this.#encoder;
  }

  /** @internal Whether the stream has a content coding (chosen now if it was not yet). */
  get encoded(): boolean {
    return this.#encoding() !== undefined;
  }

  /** Copies all of `data` (UTF-8 for text), flushing whenever staging is full. */
  async writeAll(data: Uint8Array | string): Promise<void> {
    if (++this.#writesInRow === writesPerTurn) {
      this.#writesInRow = 0;
      await nextTurn();
    }
    const encoder = this.#encoding();
    if (encoder !== undefined) {
      encoder.write(typeof data === "string" ? textEncoder.encode(data) : data);
      // The encoder's input is bounded like staging: past it, the stream flushes.
      if (encoder.pendingBytes >= this.#stream.stagingFree) await this.flush();
      return;
    }
    await this.#writeRaw(data);
  }

  /** @internal Writes bytes to the stream as they are (the encoder's output, for one). */
  async #writeRaw(data: Uint8Array | string): Promise<void> {
    if (typeof data === "string") {
      // Fast path: text that surely fits is encoded straight into staging.
      if (data.length * 3 <= this.#stream.stagingFree) {
        this.#stream.writeText(data);
        return;
      }
      data = textEncoder.encode(data);
    }
    let offset = 0;
    while (offset < data.length) {
      offset += this.#stream.write(offset === 0 ? data : data.subarray(offset));
      if (offset < data.length) await this.#stream.flush();
    }
  }

  /**
   * The free part of the worker's staging, to fill in place (a file read, for example) and then
   * `commit(count)`: the bytes are never copied. Valid until the next write, commit or flush.
   *
   * @example
   * const window = writer.stagingWindow();
   * const { bytesRead } = await file.read(window, 0, window.length, position);
   * writer.commit(bytesRead);
   * await writer.flush();
   */
  stagingWindow(): Uint8Array {
    const window = this.#stream.stagingWindow();
    const encoder = this.#encoding();
    // Encoded, the bytes go to the encoder, whose input is bounded like staging.
    if (encoder === undefined) return window;
    return window.subarray(0, Math.max(0, window.length - encoder.pendingBytes));
  }

  /**
   * Takes the first `bytes` of `stagingWindow()` as the next part of the body (under a content
   * coding, the encoder takes a copy of them).
   */
  commit(bytes: number): void {
    const encoder = this.#encoding();
    if (encoder === undefined) {
      this.#stream.commit(bytes);
      return;
    }
    const window = this.stagingWindow();
    if (!Number.isSafeInteger(bytes) || bytes < 0 || bytes > window.length) {
      throw new TypeError(`corral: commit(${bytes}) is not within the staging window`);
    }
    encoder.write(window.subarray(0, bytes));
  }

  /**
   * Whether `sendFile` hands files to the kernel's `sendfile` here (Linux, and no content coding
   * on this stream): their bytes never enter the process.
   */
  get sendsFilesInKernel(): boolean {
    return this.#encoding() === undefined && this.#stream.sendsFilesInKernel;
  }

  /**
   * Sends what was written, then `length` bytes of the open file `descriptor` from `position`
   * (see the engine's `ResponseStream.sendFile`); resolves when the socket took them. The stream
   * needs a declared length (`contentLength`) and no content coding (a `TypeError` otherwise).
   *
   * @example
   * const stream = ctx.response.stream(200, "application/octet-stream", { contentLength: size });
   * await stream.writer().sendFile(descriptor, 0, size);
   */
  sendFile(descriptor: number, position: number, length: number): Promise<void> {
    if (this.#encoding() !== undefined) {
      throw new TypeError("corral: a stream with a content coding cannot send a file as it is");
    }
    return this.#stream.sendFile(descriptor, position, length);
  }

  /** Formats `{}` placeholders with `values` (see `formatText`) and writes the text. */
  print(format: string, ...values: unknown[]): Promise<void> {
    return this.writeAll(formatText(format, values));
  }

  /** Sends what was written; resolves when the socket accepted it. */
  flush(): Promise<void> {
    const encoder = this.#encoding();
    // Without an encoder, the engine's promise as it is: no extra turn per flush.
    if (encoder === undefined) return this.#stream.flush();
    return this.#flushEncoded(encoder);
  }

  async #flushEncoded(encoder: StreamEncoder): Promise<void> {
    await this.#writeRaw(await encoder.flush());
    return this.#stream.flush();
  }

  /** @internal Writes the encoder's last bytes (the stream is not finished). */
  async endEncoding(): Promise<void> {
    const encoder = this.#encoding();
    if (encoder === undefined || this.#encodingEnded) return;
    this.#encodingEnded = true;
    await this.#writeRaw(await encoder.end());
  }

  #encodingEnded = false;
}

/**
 * A streamed response: chunked on HTTP/1.1, close-delimited on HTTP/1.0. Headers may change until
 * the first flush and throw after it. A handler that returns leaves its stream finished; one that
 * throws leaves it aborted (no terminating chunk: the client sees it did not complete).
 *
 * @example
 * const stream = ctx.response.stream(200, "text/plain; charset=utf-8");
 * await stream.writer().writeAll("hello\n");
 * await stream.finish();
 */
export class Stream {
  readonly #stream: ResponseStream;
  readonly #writer: StreamWriter;

  /**
   * @internal Made by `ctx.response.stream()`, with what chooses a content coding (at the
   * stream's first use) if a middleware encodes streams.
   */
  constructor(stream: ResponseStream, chooseEncoder?: () => StreamEncoder | undefined) {
    this.#stream = stream;
    this.#writer = new StreamWriter(stream, chooseEncoder);
  }

  /** The writer (one per stream). */
  writer(): StreamWriter {
    return this.#writer;
  }

  /** Whether the status and headers have gone out. */
  get headersSent(): boolean {
    return this.#stream.headersSent;
  }

  /** Body bytes written so far (after a content coding, before chunk framing). */
  get bodyBytes(): number {
    return this.#stream.bodyBytes;
  }

  /**
   * @internal The handler returned: a declared length it did not reach is its failure (before
   * the first flush a 500; after it, the connection closes so the client sees a short body).
   */
  assertComplete(): void {
    const shortfall = this.#stream.shortfall;
    if (shortfall !== undefined) {
      throw new TypeError(
        `corral: the handler returned short of its declared length: ${shortfall}`,
      );
    }
  }

  /** Sends what is left and ends the body; resolves when the socket accepted the last bytes. */
  finish(): Promise<void> {
    if (!this.#writer.encoded) return this.#stream.finish();
    return this.#writer.endEncoding().then(() => this.#stream.finish());
  }
}
