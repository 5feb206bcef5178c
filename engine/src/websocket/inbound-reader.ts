import { NextTurn } from "../internal/next-turn.ts";
import { releaseChunk } from "../internal/socket-chunks.ts";
import { closeCodes } from "./close-codes.ts";
import {
  type FrameLimits,
  FrameParser,
  frameControl,
  frameData,
  frameError,
  opcodeText,
} from "./frame-parser.ts";
import { MessageAssembly } from "./message-assembly.ts";
import type { MessageBufferPool, MessageBufferWaiter } from "./message-buffer-pool.ts";

/**
 * Messages up to this size that come whole in one chunk are unmasked into the connection's small
 * buffer (when it is that large) rather than lent in place: see `MessageAssembly.copiedView`.
 */
const copiedMessageMaxBytes = 512;

/**
 * Frames (data runs and control frames) one socket handles in a pass before it lets the others
 * run. One socket chunk can carry 80,000 empty frames: handled in one go, a client that sent them
 * without pause kept every other socket of the process waiting (a side client's echo took 7 s
 * behind one such client), as pipelined HTTP requests did before `requestsPerTurn`.
 */
export const framesPerTurn = 64;

/**
 * What the reader hands to its session. One object serves every session of a kind: each call
 * names the session (`owner`), so a reader costs no closures of its own.
 */
export interface InboundHost<Owner> {
  /** Whether data messages are still delivered (no close started by either side). */
  acceptsMessages(owner: Owner): boolean;
  /** A whole message, borrowed until the returned promise settles (or the call returns). */
  message(owner: Owner, data: Uint8Array, isText: boolean): void | Promise<void>;
  /** The handler of a message that was still running when the reader was cleared settled. */
  released(owner: Owner): void;
  /** A whole control frame (`parser.controlOpcode`, `parser.controlPayload()`). */
  control(owner: Owner, parser: FrameParser): void;
  /** The peer broke the protocol or a limit: close with `code`. */
  protocolError(owner: Owner, code: number, reason: string): void;
  /** The message handler threw or rejected. */
  messageFailed(owner: Owner, error: unknown): void;
  /** A message began and did not end in the same run (its deadline starts). */
  messageStarted(owner: Owner): void;
  /** A message assembled across runs is complete. */
  messageAssembled(owner: Owner): void;
  /** A pass over the input ended: what it made the session send may go out. */
  inputDone(owner: Owner): void;
}

/**
 * The input side of a WebSocket: the unconsumed socket chunk, the frame parser, and the message
 * assembly. A message that comes whole in one chunk is handed over in place; others are put
 * together in reserved memory (`MessageAssembly`), waiting for a pool buffer when they must. One
 * message is handled at a time: nothing more is parsed until its handler settles.
 */
export class InboundReader<Owner> implements MessageBufferWaiter {
  readonly #host: InboundHost<Owner>;
  readonly #owner: Owner;
  readonly #parser: FrameParser;
  readonly #assembly: MessageAssembly;
  #pending: Uint8Array | null = null;
  #position = 0;
  #handling = false;
  /** The connection closed (`clear`): nothing more is read, a running handler only settles. */
  #cleared = false;
  /** The message being handled when it was handed over in place, and the chunk it lies in. */
  #lentView: Uint8Array | null = null;
  #lentChunk: Uint8Array | null = null;
  /** A payload run kept in the pending chunk while the assembly waits for a buffer. */
  #heldStart = 0;
  #heldEnd = 0;
  #heldEndsMessage = false;
  /** Whether a pass over the input is under way (sends made in it leave with its flush). */
  processing = false;
  #nextTurn: NextTurn | null = null;
  /** Made the first time a handler returns a promise (most never do, or not on every socket). */
  #onSettled: (() => void) | null = null;
  #onFailed: ((error: unknown) => void) | null = null;
  /**
   * The small buffer, until the first bytes make the parser's copy target of it: an idle socket
   * never needs those views.
   */
  #small: Uint8Array | null;

  constructor(
    host: InboundHost<Owner>,
    owner: Owner,
    limits: FrameLimits,
    small: Uint8Array,
    pool: MessageBufferPool,
  ) {
    this.#host = host;
    this.#owner = owner;
    this.#parser = new FrameParser(limits);
    this.#small = small;
    this.#assembly = new MessageAssembly(small, pool);
  }

  /** Whether reading must pause: a message is being handled, waits for a buffer, or bytes wait. */
  get busy(): boolean {
    return this.#handling || this.#assembly.waiting || this.#pending !== null;
  }

  /**
   * The chunk that `view` lies in, when `view` is the message being handled and was handed over
   * in place; else null. The bytes before it held the client's frame header, which a client
   * must mask: it is 4 bytes longer than a server header for the same length, so a reply frame
   * can be built around the payload where it lies, without a copy.
   */
  chunkOfLent(view: Uint8Array): Uint8Array | null {
    return view === this.#lentView ? this.#lentChunk : null;
  }

  /** Bytes from the socket; `owned` false when the caller keeps them (they are copied). */
  receive(chunk: Uint8Array, owned: boolean): void {
    const small = this.#small;
    if (small !== null) {
      this.#small = null;
      this.#parser.copyTarget = small.subarray(0, Math.min(small.length, copiedMessageMaxBytes));
    }
    const bytes = owned ? chunk : chunk.slice();
    if (this.#pending !== null) {
      // Bun delivered once more after pause(): keep both, in order.
      const rest = this.#pending.subarray(this.#position);
      const joined = new Uint8Array(rest.length + bytes.length);
      joined.set(rest, 0);
      joined.set(bytes, rest.length);
      this.#pending = joined;
    } else {
      this.#pending = bytes;
    }
    this.#position = 0;
    this.process();
  }

  /** Reads no more: a close came, or the connection failed. */
  stop(): void {
    this.#pending = null;
  }

  /**
   * Forgets everything (the connection closed); a pool buffer goes back. True when a handler
   * still holds the message it was lent: its bytes (in a pool buffer or in the slot's own
   * memory) stay its own until it settles, then `released` is called.
   */
  clear(): boolean {
    this.#cleared = true;
    this.#pending = null;
    if (this.#handling) return true;
    this.#assembly.clear();
    return false;
  }

  /**
   * The pool wants this reader's buffer for a message that waits (`MessageBufferPool.reclaim`):
   * given back only while this reader's message is still arriving, and the connection failed
   * with 1013, what came of the message dropped. False while the message is being handled.
   */
  bufferReclaimed(): boolean {
    if (this.#handling) return false;
    this.#assembly.clear();
    this.#host.protocolError(this.#owner, closeCodes.tryAgainLater, "message buffer reclaimed");
    // Not inside a pass: the close frame goes out now.
    this.#host.inputDone(this.#owner);
    return true;
  }

  /** A pool buffer for the message waiting on one. */
  bufferGranted(buffer: Uint8Array): void {
    this.#assembly.granted(buffer);
    if (this.#pending === null) {
      this.#assembly.clear();
      return;
    }
    this.#assembly.append(this.#pending, this.#heldStart, this.#heldEnd, this);
    if (this.#heldEndsMessage) this.#deliverAssembled();
    this.process();
  }

  /** Parses and delivers what can be now, then tells the session the pass ended. */
  process(): void {
    const parser = this.#parser;
    this.processing = true;
    let budget = framesPerTurn;
    while (this.#pending !== null && !this.#handling && !this.#assembly.waiting) {
      if (budget === 0) {
        // The rest waits for the next turn, reads paused meanwhile (`busy`).
        this.#yieldTurn();
        break;
      }
      const bytes = this.#pending;
      const event = parser.parse(bytes, this.#position, bytes.length);
      this.#position = parser.position;
      if (event === frameData) {
        budget--;
        if (this.#host.acceptsMessages(this.#owner)) this.#dataRun(bytes);
      } else if (event === frameControl) {
        budget--;
        this.#host.control(this.#owner, parser);
      } else if (event === frameError) {
        this.#host.protocolError(this.#owner, parser.closeCode, parser.errorReason);
      } else {
        // Used up, and nothing refers to it now: what a message lent from it is over, a frame
        // written from it in place went out or was copied. A large one is freed at once.
        this.#pending = null;
        releaseChunk(bytes);
      }
    }
    this.processing = false;
    this.#host.inputDone(this.#owner);
  }

  #yieldTurn(): void {
    this.#nextTurn ??= this.#makeNextTurn();
    this.#nextTurn.schedule();
  }

  // In its own method: a closure made in #yieldTurn would make JavaScriptCore allocate a scope
  // on every call of it.
  #makeNextTurn(): NextTurn {
    return new NextTurn(() => {
      if (this.#pending !== null) this.process();
    });
  }

  #dataRun(bytes: Uint8Array): void {
    const parser = this.#parser;
    const { payloadStart, payloadEnd } = parser;
    if (parser.messageStarted && parser.messageEnded) {
      const isText = parser.messageOpcode === opcodeText;
      if (parser.payloadCopied) {
        this.#deliver(this.#assembly.copiedView(payloadEnd), isText);
        return;
      }
      // A larger message that came whole in this chunk: handed over in place, nothing copied.
      const view = bytes.subarray(payloadStart, payloadEnd);
      this.#lentView = view;
      this.#lentChunk = bytes;
      this.#deliver(view, isText);
      return;
    }
    if (parser.messageStarted) this.#host.messageStarted(this.#owner);
    if (!this.#assembly.append(bytes, payloadStart, payloadEnd, this)) {
      this.#heldStart = payloadStart;
      this.#heldEnd = payloadEnd;
      this.#heldEndsMessage = parser.messageEnded;
      return;
    }
    if (parser.messageEnded) this.#deliverAssembled();
  }

  #deliverAssembled(): void {
    this.#host.messageAssembled(this.#owner);
    this.#deliver(this.#assembly.message(), this.#parser.messageOpcode === opcodeText);
  }

  #deliver(data: Uint8Array, isText: boolean): void {
    this.#handling = true;
    let result: void | Promise<void>;
    try {
      result = this.#host.message(this.#owner, data, isText);
    } catch (error) {
      this.#failed(error);
      return;
    }
    if (result instanceof Promise) {
      this.#awaitHandler(result);
      return;
    }
    this.#done();
  }

  // The callbacks are made here, not in #deliver: an arrow function in a method makes
  // JavaScriptCore allocate a scope for `this` on every call of that method, used or not.
  #awaitHandler(result: Promise<void>): void {
    this.#onSettled ??= () => this.#handled();
    this.#onFailed ??= (error: unknown) => this.#failed(error);
    result.then(this.#onSettled, this.#onFailed);
  }

  #done(): void {
    this.#handling = false;
    this.#lentView = null;
    this.#lentChunk = null;
    this.#assembly.clear();
    if (this.#cleared) this.#host.released(this.#owner);
  }

  #handled(): void {
    this.#done();
    if (!this.#cleared) this.process();
  }

  #failed(error: unknown): void {
    this.#done();
    this.#host.messageFailed(this.#owner, error);
    // A handler that threw synchronously is inside a pass already: that pass goes on.
    if (!this.#cleared && !this.processing) this.process();
  }
}
