import type { Limits } from "../limits.ts";
import { ResponseLimitError } from "../response-errors.ts";
import type { StatsCounters } from "../stats.ts";
import { copyBytes, writeDecimal, writeLatin1, writeUtf8 } from "./ascii.ts";
import { noWorkerError, stagingOverflowError } from "./draft-errors.ts";
import { checkHeaderLine, isDateName } from "./header-check.ts";
import type { HeaderLineCache } from "./header-line-cache.ts";
import { encodeHeaderLine, readHeaderValue, removeHeaderLines } from "./header-lines.ts";
import type { CachedDateHeader } from "./http-date.ts";
import { copyReserved, viewOf, writeContentLengthName } from "./reserved-copy.ts";
import { statusLine } from "./status-lines.ts";
import { streamFramePrefixBytes, type WorkerSlot, writeOkHeadWithLines } from "./worker-table.ts";

/** Text up to this long is copied by a loop when it is ASCII: shorter than a native call's cost. */
const asciiLoopLength = 16;
const emptyBytes = new Uint8Array(0);
const connectionClose = "Connection: close\r\n";
const connectionKeepAlive = "Connection: keep-alive\r\n";
const chunkedEncoding = "Transfer-Encoding: chunked\r\n";

/** Header names the engine writes itself, so that framing cannot be contradicted (lower case). */
const engineManagedNames = new Set(["content-length", "transfer-encoding", "connection"]);

/**
 * The unpublished response of one request: status, application header lines (serialised into the
 * worker's header area) and a body that is either staged (copied into the worker's staging) or
 * borrowed (kept by reference). Reset per request; nothing is allocated.
 */
export class ResponseDraft {
  readonly #limits: Limits;
  readonly #stats: StatsCounters;
  worker: WorkerSlot | null = null;
  status = 200;
  headerLength = 0;
  stagedLength = 0;
  borrowed: Uint8Array = emptyBytes;
  hasBorrowed = false;
  /** `borrow()` made the body, copied or not: only another `borrow()` or a clear replaces it. */
  wholeBodyBorrowed = false;
  dateSet = false;
  closeRequested = false;
  /**
   * Body bytes encoded from strings for this request, discarded drafts included (garbage made).
   * Strings of 64 ASCII characters or fewer (the fast path) are left out: under one unit of
   * `textBytesPerRequestWeight`, and counting them there slowed the pipelined App hello by a
   * third in about half the runs (in-process, 1.74-1.83 µs a request against 1.15-1.24).
   */
  textBytes = 0;
  // The last header line checked (null before the first: an empty name is never taken as checked).
  #checkedName: string | null = null;
  #checkedLowerName = "";
  #checkedValue = "";

  readonly #reserved: Uint8Array | null;
  readonly #lineCache: HeaderLineCache | null;
  readonly #reservedView: DataView | null;

  /**
   * `reserved`: the engine's reservation, of which staging, header lines and output are pieces;
   * `lineCache`: the engine's encoded header lines (none: every line is encoded).
   */
  constructor(
    limits: Limits,
    stats: StatsCounters,
    reserved: Uint8Array | null = null,
    lineCache: HeaderLineCache | null = null,
  ) {
    this.#limits = limits;
    this.#stats = stats;
    this.#reserved = reserved;
    this.#reservedView = reserved === null ? null : viewOf(reserved);
    this.#lineCache = lineCache;
  }

  /**
   * Clears the draft (a new request, or a failed handler's draft being discarded); the first
   * `keepHeaderLength` bytes of header lines stay (those drafted before the handler ran).
   */
  reset(keepHeaderLength = 0): void {
    this.status = 200;
    this.headerLength = Math.min(keepHeaderLength, this.headerLength);
    this.stagedLength = 0;
    this.borrowed = emptyBytes;
    this.hasBorrowed = false;
    this.wholeBodyBorrowed = false;
    if (this.headerLength === 0) this.dateSet = false;
    this.closeRequested = false;
  }

  /** Where staged body bytes start in the worker's staging (room for a chunk-size line before). */
  get stagingStart(): number {
    return streamFramePrefixBytes;
  }

  setStatus(status: number): void {
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new TypeError(
        `corral: response status must be an integer from 200 to 599, got ${status}`,
      );
    }
    // RFC 9110 §15.3.5, §15.3.6, §15.4.5: the body would be dropped without a word.
    if (forbidsContent(status) && this.bodyLength > 0) {
      throw new TypeError(
        `corral: a ${status} response has no content, but ${this.bodyLength} body bytes are drafted`,
      );
    }
    this.status = status;
  }

  appendHeader(name: string, value: string): void {
    // A line already in place here passed the checks below when written (valid, neither
    // Connection nor engine-written): handlers set the same lines in the same order each time,
    // and with two lines the checks cost more (`Server` and `Content-Type`: 629 -> 299).
    const inPlace = this.worker?.knownLines.endOf(this.headerLength, name, value) ?? -1;
    if (inPlace >= 0) {
      if (isDateName(name)) this.dateSet = true;
      this.headerLength = inPlace;
      return;
    }
    // The line before is compared first (a plain field read): a response of one header, or a
    // header set twice in a row, skips the shared lookup.
    if (name !== this.#checkedName || value !== this.#checkedValue) {
      this.#checkedLowerName = checkHeaderLine(name, value);
      this.#checkedName = name;
      this.#checkedValue = value;
    }
    const lowerName = this.#checkedLowerName;
    if (lowerName === "connection") {
      if (/(^|,)\s*close\s*(,|$)/i.test(value)) this.closeRequested = true;
      return;
    }
    if (engineManagedNames.has(lowerName)) {
      throw new TypeError(`corral: the ${name} header is written by the engine from the body`);
    }
    if (lowerName === "date") this.dateSet = true;
    const worker = this.#requireWorker();
    const lineLength = name.length + 2 + value.length + 2;
    if (this.headerLength + lineLength > this.#limits.maxResponseHeaderBytes) {
      throw new ResponseLimitError(
        "maxResponseHeaderBytes",
        `header lines would take ${this.headerLength + lineLength} of ${this.#limits.maxResponseHeaderBytes} bytes`,
      );
    }
    const start = this.headerLength;
    const known = worker.knownLines;
    const lines = worker.headerLines;
    let end = this.#lineCache?.copy(name, value, lines, start) ?? -1;
    if (end < 0) {
      end = encodeHeaderLine(lines, start, name, value);
      this.#lineCache?.encoded(name, value, lines, start, end);
    }
    this.headerLength = end;
    known.wrote(start, end, name, value);
  }

  /** Empties the body (staged or borrowed), keeping status and headers. */
  clearBody(): void {
    this.stagedLength = 0;
    this.#dropBorrowed();
    this.wholeBodyBorrowed = false;
  }

  /** Free bytes of staging left for the body. */
  get stagingFree(): number {
    return this.#limits.stagingBytes - this.stagedLength;
  }

  /** Copies `bytes` after the staged body; throws `ResponseLimitError` when it does not fit. */
  writeBytes(bytes: Uint8Array): void {
    const length = bytes.length;
    const worker = this.#writableWorker(length);
    const staged = this.stagedLength;
    if (length > this.#limits.stagingBytes - staged) this.#stagingOverflow(length);
    if (this.hasBorrowed) this.#dropBorrowed();
    worker.staging.set(bytes, streamFramePrefixBytes + staged);
    this.stagedLength = staged + length;
    this.#stats.bytesCopiedToStaging += length;
  }

  /** Encodes `text` as UTF-8 after the staged body; throws `ResponseLimitError` when it does not fit. */
  writeText(text: string): void {
    // #writableWorker's checks written out: inlined into an App's request, even that one call
    // was left a call (51 instructions a request), and the four it replaced cost 115.
    const length = text.length;
    const worker = this.worker;
    const status = this.status;
    if (
      worker === null ||
      (length > 0 && (status === 204 || status === 205 || status === 304 || this.wholeBodyBorrowed))
    ) {
      this.#refuseWrite(length);
    }
    const staged = this.stagedLength;
    const start = streamFramePrefixBytes + staged;
    // Every UTF-16 unit takes at least one byte, so this fails early without encoding.
    if (length > this.#limits.stagingBytes - staged) {
      this.#stagingOverflow(Buffer.byteLength(text));
    }
    if (length <= asciiLoopLength) {
      // The loop here, not in a function: an App's text() reaches here five calls deep,
      // JavaScriptCore's inlining limit, and such a call cost its hello 62 instructions a request.
      const staging = worker!.staging;
      let index = 0;
      for (; index < length; index++) {
        const code = text.charCodeAt(index);
        if (code > 0x7f) break;
        staging[start + index] = code;
      }
      if (index === length) {
        if (this.hasBorrowed) this.#dropBorrowed();
        this.stagedLength = staged + length;
        this.#stats.bytesCopiedToStaging += length;
        return;
      }
    }
    const free = this.stagingFree;
    const written = writeUtf8(worker!.staging, start, text, free);
    // A UTF-16 unit takes at most three bytes: only with less room may some text be left out.
    if (3 * length > free && written < Buffer.byteLength(text)) {
      this.#stagingOverflow(Buffer.byteLength(text));
    }
    if (this.hasBorrowed) this.#dropBorrowed();
    this.stagedLength = staged + written;
    // Short ASCII text is not counted toward young collections, as when a loop copied it.
    if (length > 64 || written !== length) this.textBytes += written;
    this.#stats.bytesCopiedToStaging += written;
  }

  /** Replaces the body with bytes the caller keeps alive until they are sent. */
  borrow(bytes: Uint8Array): void {
    if (bytes.length > this.#limits.maxResponseBytes) {
      throw new ResponseLimitError(
        "maxResponseBytes",
        `a borrowed body of ${bytes.length} bytes is over ${this.#limits.maxResponseBytes}`,
      );
    }
    if (bytes.length > 0) this.#checkContentAllowed();
    this.clearBody();
    if (bytes.length < this.#limits.borrowCopyThresholdBytes) {
      this.writeBytes(bytes);
    } else {
      this.borrowed = bytes;
      this.hasBorrowed = true;
    }
    this.wholeBodyBorrowed = true;
  }

  /** The drafted body without a copy: the borrowed bytes, or a view of the staged ones. */
  get bodyView(): Uint8Array {
    if (this.hasBorrowed) return this.borrowed;
    if (this.worker === null || this.stagedLength === 0) return emptyBytes;
    return this.worker.staging.subarray(
      streamFramePrefixBytes,
      streamFramePrefixBytes + this.stagedLength,
    );
  }

  /** The drafted value of header `name` (lines of that name joined with ", "), if any. */
  headerValue(name: string): string | undefined {
    if (this.worker === null) return undefined;
    return readHeaderValue(this.worker.headerLines, this.headerLength, name.toLowerCase());
  }

  /** Removes every drafted line of header `name`. */
  removeHeader(name: string): void {
    if (this.worker === null) return;
    const lowerName = name.toLowerCase();
    if (lowerName === "date") this.dateSet = false;
    this.worker.knownLines.forget();
    this.headerLength = removeHeaderLines(this.worker.headerLines, this.headerLength, lowerName);
  }

  /** The body length as sent in Content-Length. */
  get bodyLength(): number {
    return this.hasBorrowed ? this.borrowed.length : this.stagedLength;
  }

  /**
   * Serialises the status line and header section into `target` at `offset`; returns the new
   * offset. `bodyFraming` is "length" (Content-Length: `contentLength`), "chunked", or "none"
   * (close-delimited). `contentLength` is always passed: as a default parameter it failed a type
   * check again and again, and the function was recompiled 11 times (bench/jit-churn.ts).
   */
  writeHead(
    target: Uint8Array,
    offset: number,
    date: CachedDateHeader,
    bodyFraming: "length" | "chunked" | "none",
    connection: "close" | "keep-alive" | "default",
    contentLength: number,
  ): number {
    const reserved = this.#reserved;
    const worker = this.worker;
    const headerLength = worker === null ? 0 : this.headerLength;
    let at: number;
    if (headerLength > 0 && this.status === 200 && !this.dateSet && reserved !== null) {
      at = writeOkHeadWithLines(reserved, worker!, headerLength, date, target, offset);
    } else {
      if (this.status === 200 && !this.dateSet) {
        at = copyReserved(reserved, date.okHead, 0, date.okHead.length, target, offset);
      } else {
        const line = statusLine(this.status);
        at = offset + line.length;
        copyBytes(line, 0, line.length, target, offset);
        if (!this.dateSet)
          at = copyReserved(reserved, date.bytes, 0, date.bytes.length, target, at);
      }
      if (headerLength > 0)
        at = copyReserved(reserved, worker!.headerLines, 0, headerLength, target, at);
    }
    // RFC 9110 §8.6: no Content-Length in 204 responses; a 304 would describe another response.
    if (bodyFraming === "length" && this.status !== 204 && this.status !== 304) {
      at = writeContentLengthName(this.#reservedView, target, at);
      at = writeDecimal(target, at, contentLength);
      target[at++] = 0x0d;
      target[at++] = 0x0a;
    } else if (bodyFraming === "chunked") {
      at = writeLatin1(target, at, chunkedEncoding);
    }
    if (connection === "close") at = writeLatin1(target, at, connectionClose);
    else if (connection === "keep-alive") at = writeLatin1(target, at, connectionKeepAlive);
    target[at++] = 0x0d;
    target[at++] = 0x0a;
    return at;
  }

  /** Whether this status carries no body at all (RFC 9110 §15.3.5, §15.4.5). */
  get bodyForbidden(): boolean {
    return this.status === 204 || this.status === 304;
  }

  /** The worker to write `length` body bytes into, once a write of them is allowed. */
  #writableWorker(length: number): WorkerSlot {
    const worker = this.worker;
    const status = this.status;
    if (
      worker === null ||
      (length > 0 && (status === 204 || status === 205 || status === 304 || this.wholeBodyBorrowed))
    ) {
      this.#refuseWrite(length);
    }
    return worker;
  }

  /** Throws what a write of `length` bytes breaks: no worker, a bodiless status, a borrowed body. */
  #refuseWrite(length: number): never {
    this.#requireWorker();
    if (length > 0) this.#checkBodyAllowed();
    throw new TypeError("corral: internal error, a write refused for no reason");
  }

  /** Throws when body bytes would be lost: on a bodiless status, or after a borrowed body. */
  #checkBodyAllowed(): void {
    this.#checkContentAllowed();
    if (this.wholeBodyBorrowed) {
      throw new TypeError(
        "corral: the body was borrowed whole; clear it or borrow another before writing",
      );
    }
  }

  /** A 204, 205 or 304 has no content, so bytes drafted for one would be lost. */
  #checkContentAllowed(): void {
    // Written out, not forbidsContent(): on every write, where the call was left uninlined.
    const status = this.status;
    if (status === 204 || status === 205 || status === 304) {
      throw new TypeError(
        `corral: a ${this.status} response has no content and cannot take a body`,
      );
    }
  }

  #dropBorrowed(): void {
    if (this.hasBorrowed) {
      this.borrowed = emptyBytes;
      this.hasBorrowed = false;
    }
  }

  #stagingOverflow(adding: number): never {
    throw stagingOverflowError(this.stagedLength, adding, this.#limits.stagingBytes);
  }

  #requireWorker(): WorkerSlot {
    if (this.worker === null) throw noWorkerError();
    return this.worker;
  }
}

/**
 * Whether a response of `status` must carry no content: RFC 9110 §15.3.5 (204), §15.3.6 (205: a
 * server MUST NOT generate content; unlike a 204 it is still framed, with `Content-Length: 0`)
 * and §15.4.5 (304).
 */
export function forbidsContent(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}

export { emptyBytes };
