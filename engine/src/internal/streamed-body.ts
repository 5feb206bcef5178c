import { type EngineErrorName, errorNameOf } from "../errors.ts";
import type { Limits } from "../limits.ts";
import type { ChunkedLimits } from "../parser/chunked-body.ts";
import { ClientGoneError, StaleExchangeError } from "../response-errors.ts";
import type { StatsCounters } from "../stats.ts";
import { NextTurn } from "./next-turn.ts";
import { inputComplete, inputIncomplete, type RequestInput } from "./request-input.ts";

/** What a streamed body needs from its connection. */
export interface StreamedBodyHost {
  readonly input: RequestInput;
  readonly stats: StatsCounters;
  /** The handler asked for bytes for the first time (the moment to answer 100-continue). */
  bodyStarted(): void;
  /** The handler waits for bytes, or was handed some: reading resumes, the body deadline restarts. */
  bodyProgressed(): void;
  /** The last piece was handed over: the request deadline applies from now. */
  bodyEnded(): void;
  /** The handler starts, or stops, waiting for more of the body (see slow-uploads.ts). */
  uploadWaiting(waiting: boolean): void;
  /**
   * The body broke rule `name`: the error the handler's read rejects with when the application
   * answers it (the connection closes after that answer), else null.
   */
  bodyRefused(name: EngineErrorName): Error | null;
  /** The body broke a rule: the engine answers the error and closes. */
  bodyFailed(name: EngineErrorName): void;
}

/** The window of a body not streamed yet: one for every slot. */
const noWindow = new Uint8Array(0);

/**
 * The engine side of a request body the handler reads as it goes: one read at a time, each
 * resolved with a piece borrowed from a socket chunk or from the worker's window. Bytes come from
 * the socket only while a read waits (the connection pauses reading otherwise), so an upload of
 * any size holds one socket chunk, or one window, at a time.
 */
export class StreamedBody {
  /** Whether the request in progress streams its body (begun, its request not over). */
  streamed = false;
  /** Whether a streamed body is in progress and not yet read to its end. */
  open = false;
  /** Whether a read waits for bytes from the socket. */
  waiting = false;
  /** Body bytes handed to the handler so far. */
  received = 0;
  readonly #host: StreamedBodyHost;
  readonly #limits: ChunkedLimits;
  #window: Uint8Array = noWindow;
  #started = false;
  #error: Error | null = null;
  #resolve: ((piece: Uint8Array | null) => void) | null = null;
  #reject: ((error: Error) => void) | null = null;
  #nextTurn: NextTurn | null = null;

  constructor(host: StreamedBodyHost, limits: Limits) {
    this.#host = host;
    this.#limits = {
      maxBodyBytes: limits.maxStreamedBodyBytes,
      maxChunkExtensionBytes: limits.maxChunkExtensionBytes,
      maxTrailerBytes: limits.maxTrailerBytes,
    };
  }

  /** A request whose body the handler streams is dispatched; chunked pieces go to `window`. */
  begin(window: Uint8Array): void {
    this.streamed = true;
    this.open = true;
    this.waiting = false;
    this.received = 0;
    this.#window = window;
    this.#started = false;
    this.#error = null;
  }

  /**
   * The next piece (valid until the next call), or null at the end. Rejects with
   * `ClientGoneError` when the client leaves or the body breaks a limit first.
   */
  next(): Promise<Uint8Array | null> {
    if (this.waiting) throw new TypeError("corral: a body read is already pending");
    if (this.#error !== null) return Promise.reject(this.#error);
    if (!this.open) return Promise.resolve(null);
    if (!this.#started) {
      this.#started = true;
      this.#host.bodyStarted();
    }
    const taken = this.#take();
    if (taken !== undefined) return Promise.resolve(taken);
    if (this.#error !== null) return Promise.reject(this.#error);
    this.waiting = true;
    const promise = new Promise<Uint8Array | null>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#host.bodyProgressed();
    this.#waitingOnClient();
    return promise;
  }

  /** New bytes arrived while a read waits, or the next turn came. */
  supply(): void {
    const taken = this.#take();
    if (taken === undefined) {
      if (this.waiting) this.#waitingOnClient();
      return;
    }
    const resolve = this.#resolve!;
    this.#settled();
    resolve(taken);
  }

  /** The client left, a deadline passed or the body failed: the waiting read rejects. */
  clientGone(reason: Error): void {
    if (!this.open && !this.waiting) return;
    this.#error ??= reason;
    this.open = false;
    const reject = this.#reject;
    this.#settled();
    reject?.(this.#error);
  }

  /** The request is over: a read still waiting is refused. */
  reset(): void {
    if (this.waiting) this.clientGone(new StaleExchangeError("request body"));
    this.streamed = false;
    this.open = false;
    this.#error = null;
  }

  /** A piece, null at the end, or undefined when more bytes must come (or the body failed). */
  #take(): Uint8Array | null | undefined {
    const input = this.#host.input;
    const result = input.readPiece(this.#window, this.#limits);
    if (result === inputIncomplete) {
      if (input.chunked.turnSpent) this.#decodeAtNextTurn();
      return undefined;
    }
    if (result !== inputComplete) {
      const name = errorNameOf(result);
      const refusal = this.#host.bodyRefused(name);
      this.clientGone(refusal ?? new ClientGoneError(`the request body failed: ${name}`));
      if (refusal === null) this.#host.bodyFailed(name);
      return undefined;
    }
    const piece = input.piece;
    if (piece.length === 0) {
      this.open = false;
      this.#host.bodyEnded();
      return null;
    }
    this.received += piece.length;
    const stats = this.#host.stats;
    stats.bytesStreamedIn += piece.length;
    if (piece.buffer === this.#window.buffer) stats.bytesCopiedToWindow += piece.length;
    this.#host.bodyProgressed();
    return piece;
  }

  /**
   * Tells the slow-upload rule whether the waiting read waits on the client: a read that waits
   * for the next turn (decoding stopped to let the others run) waits on the engine.
   */
  #waitingOnClient(): void {
    this.#host.uploadWaiting(!this.#host.input.chunked.turnSpent);
  }

  /** Decoding stopped to let the other connections run: it goes on at the next turn. */
  #decodeAtNextTurn(): void {
    this.#nextTurn ??= this.#makeNextTurn();
    this.#nextTurn.schedule();
  }

  // In its own method: a closure made in #decodeAtNextTurn would allocate a scope on every call.
  #makeNextTurn(): NextTurn {
    return new NextTurn(() => {
      this.#host.input.chunked.nextTurn();
      if (this.waiting) this.supply();
    });
  }

  #settled(): void {
    if (this.waiting) this.#host.uploadWaiting(false);
    this.waiting = false;
    this.#resolve = null;
    this.#reject = null;
  }
}
