import type { Limits } from "../limits.ts";
import {
  ChunkedBodyDecoder,
  type ChunkedLimits,
  chunkedComplete,
  chunkedIncomplete,
} from "../parser/chunked-body.ts";
import type { ParsedHead } from "../parser/parsed-head.ts";
import {
  type HeadLimits,
  headComplete,
  headIncomplete,
  parseRequestHead,
} from "../parser/request-head.ts";
import type { StatsCounters } from "../stats.ts";
import { moveHeadOutOfLargeChunk } from "./large-chunk-head.ts";
import { joinChunks, releaseChunk, sharesMemory, UnreadChunkCount } from "./socket-chunks.ts";

/** `readHead` / `readBody` need more bytes, or (`chunked.turnSpent`) the next turn. */
export const inputIncomplete = 0;
/** `readHead` parsed a whole head, or `readBody` has the whole body in `body`. */
export const inputComplete = 1;
// Any other result is an engine error code (see errors.ts): the parsers' codes pass through.

const emptyBody = new Uint8Array(0);

/**
 * The input side of a connection: the socket chunk being consumed, the slot's head buffer for a
 * head split across chunks, and the framing of the current request body. It parses; it never
 * writes, dispatches or decides what happens next.
 */
export class RequestInput {
  /** The current request's body once `readBody` completed: a view of a socket chunk or storage. */
  body: Uint8Array = emptyBody;
  /** The piece of a streamed body the last `readPiece` handed over (empty at the body's end). */
  piece: Uint8Array = emptyBody;
  /** Whether a head has begun arriving (its header deadline runs). */
  headStarted = false;
  readonly #headBuffer: Uint8Array;
  #headBuffered = false;
  #headBufferLength = 0;
  #chunk: Uint8Array | null = null;
  #start = 0;
  #end = 0;
  /** Whether the engine owns `#chunk` (a socket chunk, or a join it made) and may free it. */
  #chunkOwned = false;
  /** Whether the request in progress points into `#chunk` (its head, or its body borrowed). */
  #chunkInUse = false;
  /** A consumed chunk the request in progress still points into: freed when the request ends. */
  #retired: Uint8Array | null = null;
  /** The chunk the last streamed piece was borrowed from: freed when the next piece is asked. */
  #lent: Uint8Array | null = null;
  #lentOwned = false;
  /** Whether `#chunk` is the head buffer holding parked bytes (a body is copied, never borrowed). */
  #parked = false;
  #dropping = false;
  /** `#chunk` counted in `stats.unreadInputBytes` while it is kept unread. */
  readonly #unread: UnreadChunkCount;
  /** Whether a streamed chunked body has read its last chunk and trailer section. */
  #chunkedDone = false;
  #bodyChunked = false;
  #bodyLength = 0;
  #bodyReceived = 0;
  /** The chunked body's decoder: see `turnSpent`, when decoding waits for the next turn. */
  readonly chunked = new ChunkedBodyDecoder();

  /**
   * `stats.unreadInputBytes` is shared by every connection of a server: the chunks kept unread
   * across turns may add up to `maxUnreadInputBytes`.
   */
  constructor(headBuffer: Uint8Array, stats: StatsCounters, maxUnreadInputBytes: number) {
    this.#headBuffer = headBuffer;
    this.#unread = new UnreadChunkCount(stats, maxUnreadInputBytes);
  }

  /**
   * Forgets everything (a new socket, or a connection that stops reading). A handler that still
   * runs holds a stale exchange, whose members throw; views it kept of a freed chunk read empty.
   */
  discard(): void {
    this.#dropping = false;
    this.#retire(false);
    this.requestEnded();
    this.headStarted = false;
    this.body = emptyBody;
  }

  /**
   * The request in progress ended: chunks only it pointed into are freed, except one whose bytes
   * are still to be written (`pendingOutput`: a response that borrowed the request's body).
   */
  requestEnded(pendingOutput: Uint8Array | null = null): void {
    const lent = this.#lent;
    this.#lent = null;
    const lentAlone = lent !== null && lent !== this.#chunk && lent !== this.#retired;
    if (lentAlone && this.#lentOwned && !sharesMemory(lent, pendingOutput)) releaseChunk(lent);
    const retired = this.#retired;
    this.#retired = null;
    if (retired !== null && !sharesMemory(retired, pendingOutput)) releaseChunk(retired);
    this.#chunkInUse = false;
    const chunk = this.#chunk;
    if (chunk !== null && !this.pending && !sharesMemory(chunk, pendingOutput)) this.#retire(false);
  }

  /** Frees the chunk once every byte of it was copied where it belongs (worker storage, head). */
  #releaseIfUsedUp(): void {
    if (this.#chunk !== null && !this.pending && !this.#chunkInUse) this.#retire(false);
  }

  /** Lets go of the current chunk: freed now, or when the request pointing into it ends. */
  #retire(keepIfInUse: boolean): void {
    const chunk = this.#chunk;
    if (chunk === null) return;
    this.#chunk = null;
    this.#parked = false;
    this.#unread.release();
    const inUse = this.#chunkInUse;
    this.#chunkInUse = false;
    if (!this.#chunkOwned) return;
    // A second chunk still in use (head in one, body in the next) is left to the collector.
    if (keepIfInUse && inUse) this.#retired ??= chunk;
    else if (chunk !== this.#lent) releaseChunk(chunk);
  }

  /**
   * Hands over a copy of the bytes not consumed yet and forgets them: after a 101 the frames a
   * client sent right behind its handshake belong to the new protocol (RFC 9110 §7.8).
   */
  takeRemaining(): Uint8Array | null {
    if (!this.pending) return null;
    const rest = this.#chunk!.slice(this.#start, this.#end);
    this.#start = this.#end;
    return rest;
  }

  /** Whether input is dropped as it arrives (`dropPending`): reading it only costs time. */
  get dropping(): boolean {
    return this.#dropping;
  }

  /** Whether bytes that arrived are still waiting to be consumed. */
  get pending(): boolean {
    return this.#chunk !== null && this.#start < this.#end;
  }

  /**
   * Takes a chunk from the socket. Bun never reuses a chunk, so it is kept by reference; `owned`
   * says the engine may free it once used (false for bytes an in-memory caller still owns).
   * Returns false when earlier bytes were still unconsumed: both are then joined (a copy), which
   * happens only for the chunk already on its way when the connection paused reading.
   */
  receive(chunk: Uint8Array, owned: boolean): boolean {
    if (this.#dropping) {
      if (owned) releaseChunk(chunk);
      return true;
    }
    if (!this.pending) {
      this.#retire(true);
      this.#take(chunk, owned);
      return true;
    }
    const joined = joinChunks(this.#chunk!.subarray(this.#start, this.#end), chunk);
    this.#retire(true);
    if (owned) releaseChunk(chunk);
    this.#take(joined, true);
    return false;
  }

  #take(chunk: Uint8Array, owned: boolean): void {
    this.#chunk = chunk;
    this.#chunkOwned = owned;
    this.#parked = false;
    this.#start = 0;
    this.#end = chunk.length;
  }

  /**
   * Keeps the bytes still to be read for a connection that stops between two requests (its turn
   * is over, or its client reads no answers), so their chunk (up to 512 KiB) does not stay
   * outside the reservation: they move into the head buffer when they fit; else, with
   * `keepChunk` (the client still reads), the chunk is kept, counted within
   * `maxUnreadInputBytes`. False, keeping nothing, when neither can be. Does nothing while a
   * request in progress points into the chunk or the head buffer. `pendingOutput`: the output
   * segment still to be written, which may be in the chunk.
   */
  park(pendingOutput: Uint8Array | null, keepChunk: boolean): boolean {
    if (!this.pending || this.#parked || this.headStarted || this.#chunkInUse) return true;
    const length = this.#end - this.#start;
    const headBuffer = this.#headBuffer;
    if (length > headBuffer.length) return keepChunk && this.#unread.hold(this.#chunk!.length);
    this.#unread.release();
    const chunk = this.#chunk!;
    headBuffer.set(chunk.subarray(this.#start, this.#end), 0);
    if (this.#chunkOwned && !sharesMemory(chunk, pendingOutput) && chunk !== this.#lent) {
      releaseChunk(chunk);
    }
    this.#chunk = headBuffer;
    this.#chunkOwned = false;
    this.#parked = true;
    this.#start = 0;
    this.#end = length;
    return true;
  }

  /**
   * Drops the bytes still to be read, and every chunk that arrives from now on, until the next
   * `discard`: the connection will take no more requests from this client.
   */
  dropPending(pendingOutput: Uint8Array | null): void {
    const chunk = this.#chunk;
    if (chunk !== null && !this.#chunkInUse) {
      this.#chunk = null;
      this.#parked = false;
      this.#unread.release();
      if (this.#chunkOwned && !sharesMemory(chunk, pendingOutput) && chunk !== this.#lent) {
        releaseChunk(chunk);
      }
    }
    this.#start = this.#end;
    this.#dropping = true;
  }

  /**
   * The request whose head was just read waits for a worker: its head and what followed move
   * into the head buffer when they fit (the chunk is freed); else the chunk is kept, counted
   * like `park` does. False when that passes `maxUnreadInputBytes` (it must not wait).
   */
  holdWhileWaiting(head: ParsedHead): boolean {
    const chunk = this.#chunk;
    if (chunk === null || this.#parked) return true;
    const headBuffer = this.#headBuffer;
    if (head.buffer !== chunk) return !this.pending || this.#unread.hold(chunk.length);
    const length = this.#end - head.base;
    if (length > headBuffer.length) return this.#unread.hold(chunk.length);
    headBuffer.set(chunk.subarray(head.base, this.#end), 0);
    if (this.#chunkOwned) releaseChunk(chunk);
    this.#unread.release();
    this.#start -= head.base;
    this.#end = length;
    head.buffer = headBuffer;
    head.base = 0;
    this.#chunk = headBuffer;
    this.#chunkOwned = false;
    this.#parked = true;
    return true;
  }

  /**
   * Parses as much of the next request head as has arrived into `head`. Returns
   * `inputIncomplete`, `inputComplete` or an engine error code. A head that continues in a
   * later chunk is kept in the slot's head buffer, so the chunk can be let go.
   */
  readHead(head: ParsedHead, limits: HeadLimits): number {
    const chunk = this.#chunk;
    if (chunk === null || this.#start >= this.#end) return inputIncomplete;
    if (!this.headStarted) {
      head.reset(chunk, this.#start);
      this.headStarted = true;
      this.#headBuffered = false;
      this.#chunkInUse = true;
    }
    let result: number;
    if (!this.#headBuffered) {
      result = parseRequestHead(head, this.#end, limits);
      if (result === headIncomplete) {
        const length = this.#end - head.base;
        this.#headBuffer.set(chunk.subarray(head.base, this.#end), 0);
        this.#headBufferLength = length;
        head.buffer = this.#headBuffer;
        head.base = 0;
        this.#headBuffered = true;
        this.#start = this.#end;
        // The head so far is copied out: nothing of this request points into the chunk.
        this.#chunkInUse = false;
        this.#releaseIfUsedUp();
        return inputIncomplete;
      }
      if (result === headComplete) {
        this.#start = head.base + head.headEnd;
        if (moveHeadOutOfLargeChunk(head, this.#headBuffer)) this.#chunkInUse = false;
      }
    } else {
      const previous = this.#headBufferLength;
      const copy = Math.min(this.#end - this.#start, this.#headBuffer.length - previous);
      this.#headBuffer.set(chunk.subarray(this.#start, this.#start + copy), previous);
      this.#headBufferLength = previous + copy;
      result = parseRequestHead(head, this.#headBufferLength, limits);
      if (result === headIncomplete) {
        this.#start += copy;
        this.#releaseIfUsedUp();
        return inputIncomplete;
      }
      if (result === headComplete) this.#start += head.headEnd - previous;
    }
    if (result === headComplete) {
      this.headStarted = false;
      return inputComplete;
    }
    return result;
  }

  /** Sets up the framing of the body the parsed `head` announces. */
  expectBody(head: ParsedHead): void {
    this.#bodyChunked = head.chunked;
    this.#bodyLength = Math.max(head.contentLength, 0);
    this.#bodyReceived = 0;
    this.body = emptyBody;
    this.piece = emptyBody;
    this.#chunkedDone = false;
    if (head.chunked) this.chunked.reset();
  }

  /**
   * Hands over the next piece of a streamed body in `piece`, giving up the previous one: a view
   * of the socket chunk for a `Content-Length` body (no copy), or the chunked body decoded into
   * `window`. Returns `inputComplete` (`piece` empty at the body's end), `inputIncomplete` when
   * more bytes must come, or an error code.
   */
  readPiece(window: Uint8Array, limits: ChunkedLimits): number {
    this.#releaseLent();
    this.piece = emptyBody;
    const chunk = this.#chunk;
    const available = chunk === null ? 0 : this.#end - this.#start;
    if (this.#bodyChunked) {
      if (this.#chunkedDone) return inputComplete;
      if (available === 0) return inputIncomplete;
      const decoder = this.chunked;
      decoder.startWindow();
      const result = decoder.decode(chunk!, this.#start, this.#end, window, limits);
      this.#start += decoder.consumed;
      this.#releaseIfUsedUp();
      if (result === chunkedComplete) this.#chunkedDone = true;
      else if (result !== chunkedIncomplete) return result;
      this.piece = window.subarray(0, decoder.windowLength);
      return this.piece.length > 0 || this.#chunkedDone ? inputComplete : inputIncomplete;
    }
    const remaining = this.#bodyLength - this.#bodyReceived;
    if (remaining === 0) return inputComplete;
    if (available === 0) return inputIncomplete;
    const take = Math.min(available, remaining);
    this.piece = chunk!.subarray(this.#start, this.#start + take);
    this.#lent = chunk;
    this.#lentOwned = this.#chunkOwned;
    this.#start += take;
    this.#bodyReceived += take;
    return inputComplete;
  }

  /** The handler asked for the next piece: the chunk the previous one was lent from is freed. */
  #releaseLent(): void {
    const lent = this.#lent;
    if (lent === null) return;
    this.#lent = null;
    if (lent === this.#chunk) this.#releaseIfUsedUp();
    else if (lent !== this.#retired && this.#lentOwned) releaseChunk(lent);
  }

  /** Whether the current request has a body at all. */
  get expectsBody(): boolean {
    return this.#bodyChunked || this.#bodyLength > 0;
  }

  /**
   * Reads the current body into `storage` (the worker's body storage), or borrows it whole from
   * one socket chunk. Returns `inputIncomplete`, `inputComplete` (see `body`) or an error code.
   */
  readBody(storage: Uint8Array, limits: Limits): number {
    const chunk = this.#chunk;
    const available = chunk === null ? 0 : this.#end - this.#start;
    if (this.#bodyChunked) {
      if (available === 0) return inputIncomplete;
      const result = this.chunked.decode(chunk!, this.#start, this.#end, storage, limits);
      this.#start += this.chunked.consumed;
      this.#releaseIfUsedUp();
      if (result === chunkedIncomplete) return inputIncomplete;
      if (result !== chunkedComplete) return result;
      this.body = storage.subarray(0, this.chunked.decodedLength);
      return inputComplete;
    }
    const length = this.#bodyLength;
    if (length === 0) return inputComplete;
    if (available === 0) return inputIncomplete;
    if (this.#bodyReceived === 0 && available >= length && !this.#parked) {
      // The whole body is in one socket chunk, which Bun never reuses: borrow it. Not from the
      // head buffer, which the next parked bytes overwrite: a response may still borrow it.
      this.body = chunk!.subarray(this.#start, this.#start + length);
      this.#chunkInUse = true;
      this.#start += length;
      return inputComplete;
    }
    const take = Math.min(available, length - this.#bodyReceived);
    storage.set(chunk!.subarray(this.#start, this.#start + take), this.#bodyReceived);
    this.#bodyReceived += take;
    this.#start += take;
    this.#releaseIfUsedUp();
    if (this.#bodyReceived < length) return inputIncomplete;
    this.body = storage.subarray(0, length);
    return inputComplete;
  }
}
