import {
  frameHeaderBytes,
  pingFrame,
  writeCloseFrame,
  writeFrameHeader,
  writePongFrame,
} from "./frame-writer.ts";

/** What the outbound queue writes to: Bun's socket or the in-memory one. */
export interface OutboundSocket {
  write(buffer: Uint8Array, offset: number, length: number): number;
}

/** Everything queued went out. */
export const flushDone = 0;
/** The socket took part: the rest waits for `drain`. */
export const flushBlocked = 1;
/** The socket is closed. */
export const flushClosed = 2;

/**
 * One client's outbound frames. Small frames are copied into the connection's reserved output
 * buffer (the batch) and leave in one write per turn; larger ones and published frames are
 * queued by reference. Data counts against the route's cap; control frames do not: a pong and
 * a close have their own reserved place, so they are never dropped (the uWebSockets bug of PR
 * #1876). A pong goes out at the next frame boundary, ahead of queued data; a close goes after
 * the data queued before it (which the route's cap bounds), or first when that data is dropped.
 */
export class OutboundQueue {
  readonly #batch: Buffer;
  #batchLength = 0;
  readonly #entries: Uint8Array[] = [];
  #entryHead = 0;
  /**
   * A small published frame queued by reference while nothing else waited: copied into the
   * batch only if more data comes before it is written (see `pushFrame`).
   */
  #lone: Uint8Array | null = null;
  /** A frame queued in place (`queueInPlace`) until `keepBorrowed`. */
  #borrowed: Uint8Array | null = null;
  #current: Uint8Array | null = null;
  #currentOffset = 0;
  #currentEnd = 0;
  #currentIsBatch = false;
  #currentIsData = false;
  /** The batch is the connection's output buffer: usable once the 101 left it. */
  #batchEnabled = false;
  /** Data bytes accepted and not yet taken by the socket. */
  #queuedBytes = 0;
  /** Two pong buffers: one may be on its way out while the next pong is written into the other. */
  #pongs: readonly [Uint8Array, Uint8Array] | null = null;
  #pong: Uint8Array = emptyFrame;
  #pongLength = 0;
  #close: Uint8Array = emptyFrame;
  #closeLength = 0;
  #pingPending = false;
  /** Whether the last write left bytes over (the socket is not taking them). */
  blocked = false;
  /** When the socket last took bytes while blocked (for the write stall). */
  lastProgressAt = 0;

  constructor(batch: Uint8Array) {
    this.#batch = Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength);
  }

  /** Data bytes waiting: what counts against `maxOutboundBytes`. */
  get bufferedBytes(): number {
    return this.#queuedBytes;
  }

  /** Whether anything (data or control) waits to be written. */
  get pending(): boolean {
    return (
      this.#current !== null ||
      this.#batchLength > 0 ||
      this.#entryHead < this.#entries.length ||
      this.#pongLength > 0 ||
      this.#closeLength > 0 ||
      this.#pingPending
    );
  }

  /** Whether the close frame was written entirely. */
  closeSent = false;

  /** Forgets everything (a new connection). */
  reset(): void {
    this.#batchLength = 0;
    this.#entries.length = 0;
    this.#entryHead = 0;
    this.#lone = null;
    this.#borrowed = null;
    this.#current = null;
    this.#queuedBytes = 0;
    this.#pongLength = 0;
    this.#closeLength = 0;
    this.#pingPending = false;
    this.blocked = false;
    this.closeSent = false;
    this.#batchEnabled = false;
  }

  /** The 101 is written: small frames may be batched in the output buffer from now on. */
  enableBatch(): void {
    this.#batchEnabled = true;
  }

  /**
   * Queues by reference the frame around `data`, a view of `chunk`: its header goes into the
   * bytes just before the payload, which the client's own frame header took (a client must
   * mask, so its header is 4 bytes longer than ours for the same length). Only when nothing
   * waits (the order holds), the frame would not be batched anyway, and the header came in this
   * chunk. False when that does not hold. Call `keepBorrowed` after the flush that follows.
   */
  queueInPlace(opcode: number, chunk: Uint8Array, data: Uint8Array): boolean {
    const length = data.length;
    const headerBytes = frameHeaderBytes(length);
    const start = data.byteOffset - chunk.byteOffset;
    if (this.pending || start < headerBytes || this.#fitsBatch(headerBytes + length)) return false;
    writeFrameHeader(chunk, start - headerBytes, opcode, length);
    this.#borrowed = chunk.subarray(start - headerBytes, start + length);
    this.#entries.push(this.#borrowed);
    this.#queuedBytes += headerBytes + length;
    return true;
  }

  /** What the socket did not take of a frame queued in place is copied: the chunk is lent. */
  keepBorrowed(): void {
    const borrowed = this.#borrowed;
    if (borrowed === null) return;
    this.#borrowed = null;
    if (this.#current === borrowed) this.#current = borrowed.slice();
    const index = this.#entries.indexOf(borrowed, this.#entryHead);
    if (index >= 0) this.#entries[index] = borrowed.slice();
  }

  /** Whether `frameBytes` more data bytes fit under `cap`. */
  fits(frameBytes: number, cap: number): boolean {
    return this.#queuedBytes + frameBytes <= cap;
  }

  /** Queues a text message, encoded as UTF-8 straight into the batch when it fits. */
  pushText(opcode: number, text: string): number {
    this.#batchLone();
    const worstCase = text.length * 3;
    const at = this.#batchLength;
    if (this.#batchOpen() && worstCase < 0x1_0000 && at + 4 + worstCase <= this.#batch.length) {
      const batch = this.#batch;
      const written = batch.write(text, at + 4, "utf8");
      let end = at + 4 + written;
      if (written < 126) {
        batch.copyWithin(at + 2, at + 4, end);
        end -= 2;
      }
      writeFrameHeader(batch, at, opcode, written);
      this.#batchLength = end;
      this.#queuedBytes += end - at;
      return end - at;
    }
    const length = Buffer.byteLength(text, "utf8");
    const frame = Buffer.allocUnsafe(frameHeaderBytes(length) + length);
    frame.write(text, writeFrameHeader(frame, 0, opcode, length), "utf8");
    this.pushFrame(frame);
    return frame.length;
  }

  /** Queues a binary (or text) message from bytes; the bytes are copied, the caller keeps them. */
  pushBytes(opcode: number, bytes: Uint8Array): number {
    this.#batchLone();
    const frameBytes = frameHeaderBytes(bytes.length) + bytes.length;
    if (this.#fitsBatch(frameBytes)) {
      const at = writeFrameHeader(this.#batch, this.#batchLength, opcode, bytes.length);
      this.#batch.set(bytes, at);
      this.#batchLength = at + bytes.length;
      this.#queuedBytes += frameBytes;
      return frameBytes;
    }
    const frame = new Uint8Array(frameBytes);
    frame.set(bytes, writeFrameHeader(frame, 0, opcode, bytes.length));
    this.pushFrame(frame);
    return frameBytes;
  }

  /**
   * Queues a whole encoded frame (a publish: one array for every member). A small one is copied
   * into the batch, so a member of a busy room gets a turn's messages in one write; but while
   * nothing else waits it is kept by reference, and copied only when more comes before it is
   * written: a publish to many members that each get just this one frame then writes the one
   * shared array to every socket, never touching their batches. A larger one is queued by
   * reference.
   */
  pushFrame(frame: Uint8Array): void {
    this.#queuedBytes += frame.length;
    if (frame.length > batchedFrameMaxBytes) {
      this.#batchLone();
      this.#entries.push(frame);
      return;
    }
    // Nothing waits at all (no write under way, an empty batch): kept by reference.
    if (this.#current === null && this.#batchLength === 0 && this.#fitsBatch(frame.length)) {
      this.#lone = frame;
      this.#entries.push(frame);
      return;
    }
    this.#batchLone();
    if (this.#fitsBatch(frame.length)) {
      this.#batch.set(frame, this.#batchLength);
      this.#batchLength += frame.length;
    } else {
      this.#entries.push(frame);
    }
  }

  /** More data comes while the lone frame waits: it moves into the (empty) batch first. */
  #batchLone(): void {
    const lone = this.#lone;
    if (lone === null) return;
    this.#lone = null;
    this.#entries.length = 0;
    this.#entryHead = 0;
    this.#batch.set(lone, 0);
    this.#batchLength = lone.length;
  }

  /** Whether a pong waits to be written. */
  get pongPending(): boolean {
    return this.#pongLength > 0;
  }

  /** Answers a ping; a newer ping replaces an unsent pong (RFC 6455 §5.5.3 allows it). */
  pushPong(payload: Uint8Array): void {
    if (this.#pongs === null) {
      // Made at the first ping: most sockets never get one. The place is theirs from then on.
      this.#pongs = [new Uint8Array(2 + 125), new Uint8Array(2 + 125)];
      this.#pong = this.#pongs[0];
    }
    this.#pongLength = writePongFrame(this.#pong, payload);
  }

  /** Queues the server's ping. */
  pushPing(): void {
    this.#pingPending = true;
  }

  /** Queues the close frame, after the data queued so far; nothing may be queued after it. */
  pushClose(code: number, reason: string): void {
    if (this.#close === emptyFrame) this.#close = new Uint8Array(2 + 125);
    this.#closeLength = code === 1005 ? 2 : writeCloseFrame(this.#close, code, reason);
    if (code === 1005) {
      this.#close[0] = 0x88;
      this.#close[1] = 0;
    }
  }

  /** Drops queued data (after a close nothing more is sent). */
  dropData(): void {
    this.#lone = null;
    if (!this.#currentIsBatch) this.#batchLength = 0;
    this.#entries.length = 0;
    this.#entryHead = 0;
    this.#queuedBytes = this.#currentIsData ? this.#currentEnd - this.#currentOffset : 0;
  }

  /**
   * Writes as much as the socket takes: the frame in progress, then control frames, then the
   * batch, then queued frames. Returns `flushDone`, `flushBlocked` or `flushClosed`; `written`
   * gets the bytes the socket took.
   */
  flush(socket: OutboundSocket, now: number, written: { bytes: number }): number {
    for (;;) {
      if (this.#current === null && !this.#nextCurrent()) {
        this.blocked = false;
        return flushDone;
      }
      const current = this.#current!;
      const length = this.#currentEnd - this.#currentOffset;
      const took = socket.write(current, this.#currentOffset, length);
      if (took < 0) return flushClosed;
      if (took > 0) {
        written.bytes += took;
        this.lastProgressAt = now;
        if (this.#currentIsData) this.#queuedBytes -= took;
      }
      if (took < length) {
        this.#currentOffset += took;
        if (!this.blocked) this.lastProgressAt = now;
        this.blocked = true;
        return flushBlocked;
      }
      if (current === this.#close) this.closeSent = true;
      if (this.#currentIsBatch) this.#batchLength = 0;
      this.#current = null;
      this.#currentIsBatch = false;
      this.#currentIsData = false;
    }
  }

  /** Picks what goes next at a frame boundary; false when nothing waits. */
  #nextCurrent(): boolean {
    this.#currentIsBatch = false;
    this.#currentIsData = false;
    if (this.closeSent) return false;
    // A pong answers a ping that came before anything we queue now.
    if (this.#pongLength > 0) {
      this.#setCurrent(this.#pong, this.#pongLength);
      this.#pongLength = 0;
      const pongs = this.#pongs!;
      this.#pong = this.#pong === pongs[0] ? pongs[1] : pongs[0];
      return true;
    }
    if (this.#pingPending) {
      this.#pingPending = false;
      this.#setCurrent(pingFrame, pingFrame.length);
      return true;
    }
    this.#currentIsData = true;
    if (this.#batchLength > 0) {
      this.#currentIsBatch = true;
      this.#setCurrent(this.#batch, this.#batchLength);
      return true;
    }
    if (this.#entryHead < this.#entries.length) {
      const frame = this.#entries[this.#entryHead]!;
      this.#entries[this.#entryHead++] = emptyFrame;
      if (frame === this.#lone) this.#lone = null;
      if (this.#entryHead === this.#entries.length) {
        this.#entries.length = 0;
        this.#entryHead = 0;
      }
      this.#setCurrent(frame, frame.length);
      return true;
    }
    this.#currentIsData = false;
    if (this.#closeLength > 0) {
      // The close follows the data queued before it; nothing is queued after it (the session
      // refuses sends once closing), so it is the last frame (RFC 6455 §5.5.1).
      this.#setCurrent(this.#close, this.#closeLength);
      this.#closeLength = 0;
      return true;
    }
    return false;
  }

  #setCurrent(bytes: Uint8Array, length: number): void {
    this.#current = bytes;
    this.#currentOffset = 0;
    this.#currentEnd = length;
  }

  #fitsBatch(frameBytes: number): boolean {
    return this.#batchOpen() && this.#batchLength + frameBytes <= this.#batch.length;
  }

  /** Small frames may be appended to the batch: it is not being written, nothing is queued. */
  #batchOpen(): boolean {
    return this.#batchEnabled && !this.#currentIsBatch && this.#entryHead === this.#entries.length;
  }
}

const emptyFrame = new Uint8Array(0);
/** Published frames up to this size are copied into the batch rather than written apart. */
const batchedFrameMaxBytes = 2048;
