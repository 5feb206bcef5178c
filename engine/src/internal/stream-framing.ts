import type { Limits } from "../limits.ts";
import type { ParsedHead } from "../parser/parsed-head.ts";
import { ClientGoneError } from "../response-errors.ts";
import type { StatsCounters } from "../stats.ts";
import { asciiBytes, hexLength, writeHex } from "./ascii.ts";
import { FlushTurns } from "./flush-turns.ts";
import type { HandlerRun } from "./handler-run.ts";
import type { CachedDateHeader } from "./http-date.ts";
import type { OutputChannel } from "./output-channel.ts";
import { forbidsContent, type ResponseDraft } from "./response-draft.ts";
import { checkDeclaredLength, checkFileRange, checkStreamGrowth } from "./stream-length.ts";
import { streamFramePrefixBytes } from "./worker-table.ts";
import { streamFlushWeight, type YoungCollection } from "./young-collection.ts";

const lastChunk = asciiBytes("0\r\n\r\n");

/** What a stream discarded before its first flush says to a later call on it. */
export const streamDiscardedMessage =
  "corral: this stream was discarded: the handler failed before its first flush";

/** What a stream uses of its connection. */
export interface StreamHost {
  readonly head: ParsedHead;
  readonly draft: ResponseDraft;
  readonly output: OutputChannel;
  readonly isHeadRequest: boolean;
  readonly limits: Limits;
  readonly stats: StatsCounters;
  readonly context: { readonly youngCollection: YoungCollection; readonly date: CachedDateHeader };
  /**
   * The handler's part: the Connection header this response carries (and whether the
   * connection closes after it), and ending the request once the stream's last bytes are written.
   */
  readonly run: Pick<HandlerRun, "connectionDisposition" | "requestDone">;
  /** The stream started: its deadline replaces the request deadline. */
  streamStarted(): void;
  /** Runs the connection (composes and writes what is due). */
  pump(): void;
  close(): void;
}

/**
 * The streamed response of a connection: data staged in the worker's staging is framed in place
 * (chunk-size line before it, CRLF after it, in room reserved around staging) and written as one
 * segment, so a flush is one write and copies nothing. HTTP/1.0 gets a close-delimited body.
 */
export class StreamFraming {
  readonly #connection: StreamHost;
  started = false;
  headSent = false;
  finished = false;
  aborted = false;
  #chunked = true;
  /** The body length promised by `declareLength`, or -1: then chunked (or close-delimited). */
  #declaredLength = -1;
  #streamedBytes = 0;
  #flushRequested = false;
  #finishRequested = false;
  #inFlight = false;
  #resolve: (() => void) | null = null;
  #reject: ((error: Error) => void) | null = null;
  #turns: FlushTurns | null = null;
  #failure: Error | null = null;
  /** A file range `sendFile` asked for, sent after the staged bytes: descriptor, from, to. */
  #file: readonly [number, number, number] | null = null;
  /** The file of `sendFile` ended early: the flush fails, the stream is short of its length. */
  readonly #fileEnded = (error: Error) => this.#fail(error);

  constructor(connection: StreamHost) {
    this.#connection = connection;
  }

  reset(): void {
    this.started = false;
    this.headSent = false;
    this.finished = false;
    this.aborted = false;
    this.#declaredLength = -1;
    this.#streamedBytes = 0;
    this.#flushRequested = false;
    this.#finishRequested = false;
    this.#inFlight = false;
    this.#resolve = null;
    this.#reject = null;
    this.#failure = null;
    this.#file = null;
  }

  /** Whether a flush is requested or on its way (staging must not change). */
  get busy(): boolean {
    return this.#flushRequested || this.#inFlight;
  }

  start(): void {
    const connection = this.#connection;
    if (connection.draft.wholeBodyBorrowed) {
      throw new TypeError("corral: a response with a borrowed body cannot also be streamed");
    }
    this.checkStatus(connection.draft.status);
    this.started = true;
    this.#chunked = connection.head.versionMinor >= 1;
    // Anything staged before stream() is the first part of the stream.
    this.#streamedBytes = connection.draft.stagedLength;
    connection.streamStarted();
  }

  /**
   * Throws unless a stream may have `status`: RFC 9110 gives 204, 205 and 304 no content (so no
   * stream either; see `forbidsContent`), and the status line is final after the first flush.
   */
  checkStatus(status: number): void {
    if (forbidsContent(status)) {
      throw new TypeError(`corral: a ${status} response has no content and cannot be streamed`);
    }
    if (this.headSent && status !== this.#connection.draft.status) {
      throw new TypeError("corral: the status cannot change after the first flush of a stream");
    }
  }

  /**
   * Promises a body of exactly `bytes` (RFC 9112 §6.2): the head carries `Content-Length` instead of
   * chunked framing, so the client knows the size and sees a short body as incomplete.
   */
  declareLength(bytes: number): void {
    if (this.headSent)
      throw new TypeError("corral: a stream's length is declared before its first flush");
    checkDeclaredLength(bytes, this.#connection.limits.maxResponseBytes, this.#streamedBytes);
    this.#declaredLength = bytes;
  }

  /**
   * The free part of staging (capped at what the declared length still allows), to be filled in
   * place, by a file read for example, and then taken with `commit`: no copy.
   */
  stagingWindow(): Uint8Array {
    this.#checkWritable();
    const draft = this.#connection.draft;
    const start = streamFramePrefixBytes + draft.stagedLength;
    let free = draft.stagingFree;
    if (this.#declaredLength >= 0)
      free = Math.min(free, this.#declaredLength - this.#streamedBytes);
    return draft.worker!.staging.subarray(start, start + free);
  }

  /** Body bytes the stream took so far (before chunk framing), drafted ones included. */
  get bodyBytes(): number {
    return this.#streamedBytes;
  }

  /** Takes `bytes` written into `stagingWindow()` as the next part of the body. */
  commit(bytes: number): void {
    this.#checkWritable();
    const draft = this.#connection.draft;
    if (!Number.isSafeInteger(bytes) || bytes < 0 || bytes > draft.stagingFree) {
      throw new TypeError(`corral: commit(${bytes}) is not within the staging window`);
    }
    this.#checkGrowth(bytes);
    draft.stagedLength += bytes;
    this.#streamedBytes += bytes;
    this.#connection.stats.bytesCopiedToStaging += bytes;
  }

  /** Copies as much of `bytes` as staging has room for; returns how many bytes were taken. */
  write(bytes: Uint8Array): number {
    this.#checkWritable();
    const draft = this.#connection.draft;
    const take = Math.min(bytes.length, draft.stagingFree);
    this.#checkGrowth(take);
    if (take === 0) return 0;
    draft.writeBytes(take === bytes.length ? bytes : bytes.subarray(0, take));
    this.#streamedBytes += take;
    return take;
  }

  /** Copies `text` as UTF-8; throws `ResponseLimitError` when staging has no room for all of it. */
  writeText(text: string): void {
    this.#checkWritable();
    const draft = this.#connection.draft;
    const before = draft.stagedLength;
    draft.writeText(text);
    const added = draft.stagedLength - before;
    try {
      this.#checkGrowth(added);
    } catch (error) {
      draft.stagedLength = before;
      throw error;
    }
    this.#streamedBytes += added;
  }

  /**
   * Sends what is staged, then `length` bytes of the open file `descriptor` from `position`
   * (sendfile where the platform has it: file-segment.ts); resolves when the socket took them.
   * Only with a declared length: chunked framing would need the bytes in hand.
   */
  sendFile(descriptor: number, position: number, length: number): Promise<void> {
    this.#checkWritable();
    checkFileRange(this.#declaredLength, descriptor, position, length);
    // The declared length was checked against `maxResponseBytes` when it was declared.
    this.#checkGrowth(length, Number.POSITIVE_INFINITY);
    this.#streamedBytes += length;
    if (length > 0 && !this.#connection.isHeadRequest) {
      this.#file = [descriptor, position, position + length];
    }
    return this.flush(false);
  }

  /** Sends what is staged; resolves when the socket has taken it. */
  flush(finish: boolean): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.finished || this.#finishRequested) {
      return Promise.reject(new TypeError("corral: the stream is already finished"));
    }
    if (this.busy) {
      return Promise.reject(new TypeError("corral: a flush is already on its way; await it first"));
    }
    if (finish && this.shortOfDeclared) {
      const error = new TypeError(`corral: ${this.shortfall}`);
      // Once the head is out the client was promised more: only closing tells it the body is short.
      if (this.headSent) this.abort();
      return Promise.reject(error);
    }
    this.#connection.context.youngCollection.count(streamFlushWeight);
    this.#flushRequested = true;
    this.#finishRequested = finish;
    const promise = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#turns ??= new FlushTurns();
    const turns = this.#turns;
    turns.flushing = true;
    try {
      this.#connection.pump();
    } finally {
      turns.flushing = false;
    }
    return promise;
  }

  /** The handler returned with the stream open: finish it for the handler. */
  finishFromEngine(): void {
    if (this.finished || this.aborted || this.#finishRequested) return;
    if (this.shortOfDeclared && !this.busy) {
      this.abort();
      return;
    }
    if (this.#inFlight || this.#flushRequested) {
      // A flush the handler did not await: finish after it.
      const resolve = this.#resolve;
      this.#resolve = () => {
        resolve?.();
        this.finishFromEngine();
      };
      return;
    }
    this.flush(true).catch(() => {});
  }

  /** Builds the next frame once earlier output is written (called by the connection's pump). */
  composePending(): void {
    if (!this.#flushRequested || this.#inFlight) return;
    const connection = this.#connection;
    const draft = connection.draft;
    const output = connection.output;
    this.#flushRequested = false;
    this.#inFlight = true;
    const sized = this.#declaredLength >= 0;
    if (!this.headSent) {
      const framing = sized ? "length" : this.#chunked ? "chunked" : "none";
      // RFC 9112 §6.3: an HTTP/1.0 client reads a body of unknown length until the connection closes.
      if (framing === "none") draft.closeRequested = true;
      const disposition = connection.run.connectionDisposition();
      output.end = draft.writeHead(
        output.buffer,
        output.end,
        connection.context.date,
        framing,
        disposition,
        sized ? this.#declaredLength : draft.bodyLength,
      );
      this.headSent = true;
      connection.stats.countResponse(draft.status);
    }
    const length = connection.isHeadRequest ? 0 : draft.stagedLength;
    if (connection.isHeadRequest) draft.stagedLength = 0;
    if (length > 0) {
      const staging = draft.worker!.staging;
      const dataStart = streamFramePrefixBytes;
      if (this.#chunked && !sized) {
        const frameStart = dataStart - hexLength(length) - 2;
        writeHex(staging, frameStart, length);
        staging[dataStart - 2] = 0x0d;
        staging[dataStart - 1] = 0x0a;
        let frameEnd = dataStart + length;
        staging[frameEnd++] = 0x0d;
        staging[frameEnd++] = 0x0a;
        if (this.#finishRequested) {
          staging.set(lastChunk, frameEnd);
          frameEnd += lastChunk.length;
        }
        output.setSegment(staging, frameStart, frameEnd, true, false);
      } else {
        output.setSegment(staging, dataStart, dataStart + length, true, false);
      }
    } else if (this.#finishRequested && this.#chunked && !sized && !connection.isHeadRequest) {
      output.buffer.set(lastChunk, output.end);
      output.end += lastChunk.length;
    }
    const file = this.#file;
    if (file !== null) {
      this.#file = null;
      output.file.set(file[0], file[1], file[2], this.#fileEnded, draft.worker!.staging);
    }
    if (!output.pending) this.outputDone();
  }

  /** Everything composed so far has been written. */
  outputDone(): void {
    if (!this.#inFlight) return;
    this.#inFlight = false;
    const connection = this.#connection;
    connection.draft.stagedLength = 0;
    const resolve = this.#resolve;
    this.#resolve = null;
    this.#reject = null;
    if (this.#finishRequested) {
      this.finished = true;
      connection.run.requestDone();
    }
    if (resolve !== null) this.#turns!.settle(resolve);
  }

  /**
   * The handler failed before the first flush: the client has seen nothing, so the stream is
   * forgotten and a plain answer can replace it. A flush still waiting rejects.
   */
  discard(): void {
    const reject = this.#reject;
    this.reset();
    reject?.(new TypeError(streamDiscardedMessage));
  }

  /** The handler failed after streaming began: end without the last chunk, so the client knows. */
  abort(): void {
    if (this.finished || this.aborted) return;
    this.aborted = true;
    this.#fail(new ClientGoneError("the stream was aborted"));
    this.#connection.close();
  }

  /** The connection is gone: a waiting or later flush rejects. */
  clientGone(reason: Error): void {
    if (!this.started) return;
    this.#fail(reason);
  }

  #fail(reason: Error): void {
    this.#failure = reason;
    const reject = this.#reject;
    this.#resolve = null;
    this.#reject = null;
    this.#flushRequested = false;
    this.#inFlight = false;
    reject?.(reason);
  }

  #checkWritable(): void {
    if (this.#failure !== null) throw this.#failure;
    if (this.finished || this.#finishRequested)
      throw new TypeError("corral: the stream is finished");
    if (this.busy) throw new TypeError("corral: a flush is on its way; await it before writing");
  }

  /** A declared length not reached (a HEAD answer sends no body, so it is never short). */
  get shortOfDeclared(): boolean {
    return (
      this.#declaredLength >= 0 &&
      this.#streamedBytes !== this.#declaredLength &&
      !this.#connection.isHeadRequest
    );
  }

  /** Short of its declared length with nothing sent yet: it can still be answered otherwise. */
  get endsShortBeforeHead(): boolean {
    return this.started && !this.headSent && !this.busy && this.shortOfDeclared;
  }

  /** What a declared length still misses, said in words; undefined when nothing is missing. */
  get shortfall(): string | undefined {
    if (!this.shortOfDeclared) return undefined;
    return `the stream ends at ${this.#streamedBytes} of its declared ${this.#declaredLength} bytes`;
  }

  #checkGrowth(adding: number, limit = this.#connection.limits.maxResponseBytes): void {
    checkStreamGrowth(this.#streamedBytes, adding, this.#declaredLength, limit);
  }
}
