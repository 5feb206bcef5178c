import type { StatsCounters } from "../stats.ts";
import type { ErrorResponse } from "./error-responses.ts";
import { FileSegment } from "./file-segment.ts";
import type { CachedDateHeader } from "./http-date.ts";
import { copyReserved } from "./reserved-copy.ts";
import type { ResponseDraft } from "./response-draft.ts";
import { writeTwoRanges } from "./vectored-write.ts";

/** The part of a Bun socket the output channel uses. */
export interface WritableSocket {
  write(data: Uint8Array, byteOffset: number, byteLength: number): number;
  /**
   * The descriptor, for vectored writes: Bun's TCP sockets have it at run time (-1 once closed;
   * the 1.4.4 typings omit it), the in-memory socket has none.
   */
  readonly fd?: number;
}

/** `flushTo` wrote everything. */
export const outputDone = 1;
/** `flushTo` wrote part; the rest waits for `drain`. */
export const outputBlocked = 0;
/** `flushTo` found the socket closed. */
export const outputClosed = -1;

/**
 * The output side of a connection: a fixed batch buffer where response heads and small bodies
 * are collected (so one input chunk gets one `write`), followed by at most one segment written in
 * place from memory the engine does not copy (worker staging or a borrowed body), then at most
 * one range of a file (see file-segment.ts). Partial writes continue from an offset on `drain`;
 * nothing is ever copied to make room. While the socket takes nothing more the output is
 * `blocked`: see blocked-output.ts for what that may cost others.
 */
export class OutputChannel {
  readonly buffer: Uint8Array;
  start = 0;
  end = 0;
  segment: Uint8Array | null = null;
  segmentStart = 0;
  segmentEnd = 0;
  /** Whether the segment lives in the worker's staging, so the worker is held until it is sent. */
  segmentInStaging = false;
  /** Whether the segment's bytes count as borrowed payload in the stats. */
  segmentBorrowed = false;
  /** Whether the last write was short: the client is not reading fast enough (or at all). */
  blocked = false;
  /** When a write last made progress (or the output last became pending), for `writeStallMs`. */
  lastProgressAt = 0;
  /** A file range written after the segment. */
  readonly file: FileSegment;

  /** The engine's reservation, of which `buffer` and the workers' staging are pieces, or null. */
  readonly #reserved: Uint8Array | null;

  constructor(buffer: Uint8Array, reserved: Uint8Array | null = null) {
    this.buffer = buffer;
    this.#reserved = reserved;
    this.file = new FileSegment(this);
  }

  /** Whether any byte is waiting to be written. */
  get pending(): boolean {
    return this.end > this.start || this.segment !== null || this.file.pending;
  }

  /** Free bytes at the end of the batch buffer; zero while a segment waits (order must hold). */
  get room(): number {
    return this.segment === null && !this.file.pending ? this.buffer.length - this.end : 0;
  }

  /** Forgets everything unsent (the connection is closing). */
  discard(): void {
    this.start = 0;
    this.end = 0;
    this.blocked = false;
    this.#dropSegment();
    this.file.clear();
  }

  /** Appends bytes to the batch; the caller checked `room`. */
  append(bytes: Uint8Array): void {
    this.buffer.set(bytes, this.end);
    this.end += bytes.length;
  }

  /**
   * Appends a published response: its head, then its body copied into the batch when it fits,
   * else queued as the segment (a borrowed body, or staging the worker keeps until it is sent).
   * The caller checked that `room` holds the head (the connection reserves it before dispatch).
   */
  appendResponse(
    draft: ResponseDraft,
    date: CachedDateHeader,
    connection: "close" | "keep-alive" | "default",
    omitBody: boolean,
  ): void {
    const draftedLength = draft.bodyLength;
    this.end = draft.writeHead(this.buffer, this.end, date, "length", connection, draftedLength);
    const bodyLength = omitBody || draft.bodyForbidden ? 0 : draftedLength;
    if (bodyLength === 0) return;
    if (draft.hasBorrowed) {
      this.setSegment(draft.borrowed, 0, bodyLength, false, true);
      return;
    }
    const start = draft.stagingStart;
    const staging = draft.worker!.staging;
    if (bodyLength <= this.room) {
      this.end = copyReserved(
        this.#reserved,
        staging,
        start,
        start + bodyLength,
        this.buffer,
        this.end,
      );
    } else {
      this.setSegment(staging, start, start + bodyLength, true, false);
    }
  }

  /** Appends a pre-encoded engine error answer (RFC 9110 §9.3.2: to HEAD, its head only). */
  appendError(row: ErrorResponse, date: Uint8Array, omitBody: boolean): void {
    this.append(row.prefix);
    this.append(date);
    this.append(omitBody ? row.suffixWithoutBody : row.suffix);
  }

  /**
   * Writes what the socket takes and keeps `blocked` and `lastProgressAt` up to date. Returns
   * `outputDone`, `outputBlocked` or `outputClosed`.
   */
  writeTo(socket: WritableSocket, stats: StatsCounters, now: number): number {
    const before = stats.bytesOut;
    const result = this.flushTo(socket, stats);
    if (result === outputClosed) return result;
    if (stats.bytesOut > before || !this.blocked) this.lastProgressAt = now;
    this.blocked = result === outputBlocked;
    return result;
  }

  /** Queues `bytes[from, to)` to be written in place after the batch buffer. */
  setSegment(bytes: Uint8Array, from: number, to: number, inStaging: boolean, borrowed: boolean) {
    this.segment = bytes;
    this.segmentStart = from;
    this.segmentEnd = to;
    this.segmentInStaging = inStaging;
    this.segmentBorrowed = borrowed;
  }

  /** Writes as much as the socket takes. */
  flushTo(socket: WritableSocket, stats: StatsCounters): number {
    if (this.end > this.start && this.segment !== null) {
      const descriptor = socket.fd;
      if (descriptor !== undefined && descriptor >= 0 && this.#writeBoth(descriptor, stats)) {
        return outputDone;
      }
    }
    if (this.end > this.start) {
      const length = this.end - this.start;
      const written = socket.write(this.buffer, this.start, length);
      if (written < 0) return outputClosed;
      stats.bytesOut += written;
      if (written < length) {
        this.start += written;
        return outputBlocked;
      }
      this.start = 0;
      this.end = 0;
    }
    const segment = this.segment;
    if (segment !== null) {
      const length = this.segmentEnd - this.segmentStart;
      const written = length === 0 ? 0 : socket.write(segment, this.segmentStart, length);
      if (written < 0) return outputClosed;
      stats.bytesOut += written;
      if (this.segmentBorrowed) stats.bytesBorrowed += written;
      if (written < length) {
        this.segmentStart += written;
        return outputBlocked;
      }
      this.#dropSegment();
    }
    if (this.file.pending) return this.file.writeTo(socket, stats);
    return outputDone;
  }

  /**
   * Sends the batch and the segment with one vectored write; true when both went out whole. What
   * the kernel did not take is left for `flushTo`'s ordinary writes, which arm `drain`.
   */
  #writeBoth(descriptor: number, stats: StatsCounters): boolean {
    const segment = this.segment!;
    const written = writeTwoRanges(
      descriptor,
      this.buffer,
      this.start,
      this.end,
      segment,
      this.segmentStart,
      this.segmentEnd,
    );
    if (written <= 0) return false;
    stats.bytesOut += written;
    const batchLength = this.end - this.start;
    if (written < batchLength) {
      this.start += written;
      return false;
    }
    this.start = 0;
    this.end = 0;
    const segmentWritten = written - batchLength;
    if (this.segmentBorrowed) stats.bytesBorrowed += segmentWritten;
    this.segmentStart += segmentWritten;
    if (this.segmentStart < this.segmentEnd) return false;
    this.#dropSegment();
    return true;
  }

  #dropSegment(): void {
    this.segment = null;
    this.segmentInStaging = false;
    this.segmentBorrowed = false;
  }
}
