import { type EngineErrorName, errorNameOf } from "../errors.ts";
import { Exchange } from "../exchange.ts";
import { engineHeaderReserveBytes } from "../limits.ts";
import { ChunkedBodyDecoder, chunkedComplete, chunkedIncomplete } from "../parser/chunked-body.ts";
import { ParsedHead } from "../parser/parsed-head.ts";
import { headComplete, headIncomplete, parseRequestHead } from "../parser/request-head.ts";
import { ClientGoneError } from "../response-errors.ts";
import type { DeadlineKind } from "../stats.ts";
import { asciiBytes, copyBytes } from "./ascii.ts";
import type { EngineContext } from "./engine-context.ts";
import type { EngineSocket } from "./engine-socket.ts";
import { errorResponseMaxBytes } from "./error-responses.ts";
import { OutputChannel, outputBlocked, outputClosed } from "./output-channel.ts";
import { ResponseDraft } from "./response-draft.ts";
import { StreamFraming } from "./stream-framing.ts";
import type { WorkerSlot } from "./worker-table.ts";

const stateReadingHead = 0;
const stateWaitingWorker = 1;
const stateReadingBody = 2;
const stateHandling = 3;
const stateClosing = 4;
const stateClosed = 5;

const continueLine = asciiBytes("HTTP/1.1 100 Continue\r\n\r\n");
const emptyBody = new Uint8Array(0);
/** How long a connection closed after an error keeps reading (and dropping) what the client sends. */
const lingerMs = 1000;

/**
 * One connection slot: the request state machine from head to response, over a socket that is
 * attached while the slot is in use. Every buffer it uses was reserved at startup; one `pump`
 * drives input, dispatch and output so that each input chunk is answered with one write.
 */
export class Connection {
  readonly slot: number;
  readonly context: EngineContext;
  socket: EngineSocket | null = null;
  /** Advances whenever a request ends or the socket changes: stale exchanges compare it. */
  generation = 0;
  state = stateClosed;
  readonly head: ParsedHead;
  readonly output: OutputChannel;
  readonly draft: ResponseDraft;
  readonly stream: StreamFraming;
  exchange: Exchange | null = null;
  body: Uint8Array = emptyBody;
  isHeadRequest = false;
  /** The last path and query strings made for this connection, reused when they repeat. */
  lastPath = "";
  lastQuery = "";
  deadlineAt = Number.POSITIVE_INFINITY;
  deadlineKind: DeadlineKind | "linger" = "idle";

  readonly #headBuffer: Uint8Array;
  #headBuffered = false;
  #headBufferLength = 0;
  #headStarted = false;
  #input: Uint8Array | null = null;
  #inputStart = 0;
  #inputEnd = 0;
  #paused = false;
  #bodyChunked = false;
  #bodyLength = 0;
  #bodyReceived = 0;
  readonly #chunked = new ChunkedBodyDecoder();
  #handlerRunning = false;
  #publishWaiting = false;
  #closeAfterOutput = false;
  #pendingError: EngineErrorName | null = null;
  #lingerAfterOutput = false;
  #writeBlocked = false;
  #lastWriteProgressAt = 0;
  #pumping = false;
  #pumpAgain = false;
  #grantedWorker: WorkerSlot | null = null;
  #reacquireResolve: (() => void) | null = null;
  #reacquireReject: ((error: Error) => void) | null = null;
  readonly runGrant: () => void;

  constructor(slot: number, context: EngineContext, headBuffer: Uint8Array, output: Uint8Array) {
    this.slot = slot;
    this.context = context;
    this.#headBuffer = headBuffer;
    this.head = new ParsedHead(context.limits.maxHeaderCount);
    this.output = new OutputChannel(output);
    this.draft = new ResponseDraft(context.limits, context.stats);
    this.stream = new StreamFraming(this);
    this.runGrant = () => this.#runGrant();
  }

  /** Attaches a newly accepted socket. */
  open(socket: EngineSocket): void {
    this.socket = socket;
    this.generation++;
    this.state = stateReadingHead;
    this.#closeAfterOutput = false;
    this.#pendingError = null;
    this.#lingerAfterOutput = false;
    this.#writeBlocked = false;
    this.#paused = false;
    this.#headStarted = false;
    this.#input = null;
    this.output.discard();
    // The first request of a connection gets the header deadline, later ones the idle timeout.
    this.#setDeadline("idle", this.context.limits.headerDeadlineMs);
  }

  // ---- events -------------------------------------------------------------------------------

  /** A chunk arrived from the socket. */
  onData(chunk: Uint8Array): void {
    this.context.stats.bytesIn += chunk.length;
    if (this.state === stateClosing || this.state === stateClosed) return;
    if (this.#input === null || this.#inputStart >= this.#inputEnd) {
      this.#input = chunk;
      this.#inputStart = 0;
      this.#inputEnd = chunk.length;
    } else {
      // A second chunk while the first is still unconsumed (a request is in progress): keep
      // both, and stop reading until they are used, so at most two chunks are ever held.
      const rest = this.#inputEnd - this.#inputStart;
      const joined = new Uint8Array(rest + chunk.length);
      joined.set(this.#input.subarray(this.#inputStart, this.#inputEnd), 0);
      joined.set(chunk, rest);
      this.#input = joined;
      this.#inputStart = 0;
      this.#inputEnd = joined.length;
      this.#pause();
    }
    this.pump();
  }

  /** The socket can take more bytes. */
  onDrain(): void {
    if (this.socket !== null && this.output.pending) this.pump();
  }

  /** The client half-closed: nothing more will come. */
  onEnd(): void {
    if (this.socket === null) return;
    // Like common servers, a FIN during a request is taken as the client giving up on it; what
    // the handler still answers is written, then the connection closes.
    this.#abortExchange(new ClientGoneError("the client closed the connection"));
    if (this.state === stateReadingHead && !this.output.pending) {
      this.close();
      return;
    }
    this.#closeAfterOutput = true;
    this.pump();
  }

  /** The socket closed (by either side). */
  onClose(): void {
    const socket = this.socket;
    if (socket === null) return;
    // Events Bun may still deliver for this socket must not reach a later user of the slot.
    socket.data = -1;
    this.socket = null;
    this.#abortExchange(new ClientGoneError());
    this.#releaseAll();
    this.state = stateClosed;
    this.generation++;
    this.context.connectionClosed(this.slot);
  }

  /** Closes the socket now; `onClose` does the bookkeeping. */
  close(): void {
    const socket = this.socket;
    if (socket === null) return;
    this.state = stateClosing;
    socket.end();
    // Bun calls close from end(); if it did not, finish the bookkeeping here.
    if (this.socket !== null) this.onClose();
  }

  /** On stop: closes the connection now when it is between requests. */
  closeIfIdle(): void {
    if (this.socket === null) return;
    // Others close after their current response, which carries `Connection: close`.
    if (this.state === stateReadingHead && !this.#headStarted && !this.output.pending) this.close();
  }

  /** Aborts the connection at once (RST), for stalled writers and forced stops. */
  terminate(): void {
    const socket = this.socket;
    if (socket === null) return;
    this.state = stateClosing;
    socket.terminate();
    if (this.socket !== null) this.onClose();
  }

  // ---- the driver ---------------------------------------------------------------------------

  /** Runs everything that can run now: pending publish, stream frames, input, output. */
  pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#pumpAgain = false;
        if (this.socket === null) break;
        if (this.#pendingError !== null && this.output.room >= errorResponseMaxBytes) {
          this.#appendError(this.#pendingError);
          this.#pendingError = null;
        }
        if (this.#publishWaiting && this.output.room >= this.#headRoomNeeded()) {
          this.#publishWaiting = false;
          this.#publish();
        }
        if (!this.output.pending) this.stream.composePending();
        this.#consumeInput();
        if (this.output.pending) {
          if (!this.#writeOutput()) break;
        } else if (
          this.#closeAfterOutput &&
          !this.#pumpAgain &&
          this.#pendingError === null &&
          !this.#requestInProgress()
        ) {
          this.#finishClosing();
          break;
        }
      } while (this.#pumpAgain);
    } finally {
      this.#pumping = false;
    }
    if (this.#paused && this.socket !== null && this.#readyForInput()) this.#resume();
  }

  #readyForInput(): boolean {
    const state = this.state;
    return (
      (state === stateReadingHead || state === stateReadingBody) &&
      (this.#input === null || this.#inputStart >= this.#inputEnd)
    );
  }

  #requestInProgress(): boolean {
    return this.state !== stateReadingHead && this.state !== stateClosing;
  }

  /** Writes pending output; returns true when all of it went out. */
  #writeOutput(): boolean {
    const socket = this.socket!;
    const stats = this.context.stats;
    const before = stats.bytesOut;
    const result = this.output.flushTo(socket, stats);
    if (result === outputClosed) {
      this.onClose();
      return false;
    }
    if (stats.bytesOut > before || !this.#writeBlocked)
      this.#lastWriteProgressAt = this.context.now;
    if (result === outputBlocked) {
      this.#writeBlocked = true;
      return false;
    }
    this.#writeBlocked = false;
    this.#outputDone();
    this.#pumpAgain = true;
    return true;
  }

  #outputDone(): void {
    // A staged body written in place held the worker; the request itself may be over already.
    const worker = this.draft.worker;
    if (worker !== null && this.state === stateReadingHead && !this.#handlerRunning) {
      this.draft.worker = null;
      this.context.giveWorker(worker);
    }
    this.stream.outputDone();
    if (this.state === stateReadingHead && !this.#headStarted) {
      this.#setDeadline("idle", this.context.limits.idleTimeoutMs);
    }
  }

  #finishClosing(): void {
    if (!this.#lingerAfterOutput) {
      this.close();
      return;
    }
    // After an error answer: send FIN, then read and drop what the client still sends for a
    // moment, so that a client still uploading reads the answer instead of a reset.
    this.#lingerAfterOutput = false;
    this.state = stateClosing;
    this.#input = null;
    this.#resume();
    this.socket?.shutdown();
    this.#setDeadline("linger", lingerMs);
  }

  // ---- input --------------------------------------------------------------------------------

  #consumeInput(): void {
    while (this.socket !== null && !this.#writeBlocked && this.output.segment === null) {
      if (this.#closeAfterOutput) return;
      if (this.state === stateReadingHead) {
        if (!this.#readHead()) return;
      } else if (this.state === stateReadingBody) {
        if (!this.#readBody()) return;
      } else {
        return;
      }
    }
  }

  #readHead(): boolean {
    const input = this.#input;
    if (input === null || this.#inputStart >= this.#inputEnd) return false;
    const head = this.head;
    const limits = this.context.limits;
    if (!this.#headStarted) {
      head.reset(input, this.#inputStart);
      this.#headStarted = true;
      this.#headBuffered = false;
      this.#setDeadline("header", limits.headerDeadlineMs);
    }
    let result: number;
    if (!this.#headBuffered) {
      result = parseRequestHead(head, this.#inputEnd, limits);
      if (result === headIncomplete) {
        // The head continues in a later chunk: keep what came so far in this slot's head buffer.
        const length = this.#inputEnd - head.base;
        this.#headBuffer.set(input.subarray(head.base, this.#inputEnd), 0);
        this.#headBufferLength = length;
        head.buffer = this.#headBuffer;
        head.base = 0;
        this.#headBuffered = true;
        this.#inputStart = this.#inputEnd;
        return false;
      }
      if (result === headComplete) this.#inputStart = head.base + head.headEnd;
    } else {
      const previous = this.#headBufferLength;
      const copy = Math.min(this.#inputEnd - this.#inputStart, this.#headBuffer.length - previous);
      this.#headBuffer.set(input.subarray(this.#inputStart, this.#inputStart + copy), previous);
      this.#headBufferLength = previous + copy;
      result = parseRequestHead(head, this.#headBufferLength, limits);
      if (result === headIncomplete) {
        this.#inputStart += copy;
        return false;
      }
      if (result === headComplete) this.#inputStart += head.headEnd - previous;
    }
    if (result !== headComplete) {
      this.fail(errorNameOf(result));
      return false;
    }
    this.#headStarted = false;
    this.context.stats.requests++;
    return this.#headParsed();
  }

  #headParsed(): boolean {
    const head = this.head;
    const method = head.base + head.methodStart;
    this.isHeadRequest =
      head.methodEnd - head.methodStart === 4 &&
      head.buffer[method] === 0x48 &&
      head.buffer[method + 1] === 0x45 &&
      head.buffer[method + 2] === 0x41 &&
      head.buffer[method + 3] === 0x44;
    this.#bodyChunked = head.chunked;
    this.#bodyLength = Math.max(head.contentLength, 0);
    this.#bodyReceived = 0;
    this.body = emptyBody;
    const worker = this.context.takeWorker();
    if (worker === undefined) {
      if (!this.context.enqueueRequest(this.slot)) {
        this.fail("queueFull");
        return false;
      }
      this.state = stateWaitingWorker;
      this.#setDeadline("request", this.context.limits.requestDeadlineMs);
      this.#pause();
      return false;
    }
    this.#beginBody(worker);
    return true;
  }

  /** The queue handed this connection a worker; runs from a microtask to keep stacks flat. */
  grantWorker(worker: WorkerSlot): void {
    this.#grantedWorker = worker;
    queueMicrotask(this.runGrant);
  }

  #runGrant(): void {
    const worker = this.#grantedWorker;
    this.#grantedWorker = null;
    if (worker === null) return;
    if (this.socket === null) {
      this.context.giveWorker(worker);
      return;
    }
    if (this.#reacquireResolve !== null) {
      const resolve = this.#reacquireResolve;
      this.#reacquireResolve = null;
      this.#reacquireReject = null;
      this.draft.worker = worker;
      resolve();
      return;
    }
    if (this.state !== stateWaitingWorker) {
      this.context.giveWorker(worker);
      return;
    }
    this.#beginBody(worker);
    this.pump();
  }

  #beginBody(worker: WorkerSlot): void {
    this.draft.reset();
    this.draft.worker = worker;
    this.stream.reset();
    this.state = stateReadingBody;
    this.#setDeadline("body", this.context.limits.bodyDeadlineMs);
    const expectsBody = this.#bodyChunked || this.#bodyLength > 0;
    // RFC 9110 §10.1.1: 100-continue only once the request is accepted, and only when the
    // client is still waiting (no body bytes have come yet).
    if (
      this.head.expectContinue &&
      expectsBody &&
      (this.#input === null || this.#inputStart >= this.#inputEnd)
    ) {
      this.output.buffer.set(continueLine, this.output.end);
      this.output.end += continueLine.length;
      this.context.stats.countResponse(100);
    }
    if (this.#bodyChunked) this.#chunked.reset();
  }

  #readBody(): boolean {
    const input = this.#input;
    const available = input === null ? 0 : this.#inputEnd - this.#inputStart;
    const worker = this.draft.worker!;
    if (this.#bodyChunked) {
      if (input === null || available === 0) return false;
      const result = this.#chunked.decode(
        input,
        this.#inputStart,
        this.#inputEnd,
        worker.body,
        this.context.limits,
      );
      this.#inputStart += this.#chunked.consumed;
      if (result === chunkedIncomplete) return false;
      if (result !== chunkedComplete) {
        this.fail(errorNameOf(result));
        return false;
      }
      this.body = worker.body.subarray(0, this.#chunked.decodedLength);
      return this.#dispatch();
    }
    const length = this.#bodyLength;
    if (length === 0) return this.#dispatch();
    if (input === null || available === 0) return false;
    if (this.#bodyReceived === 0 && available >= length) {
      // The whole body is in one socket chunk, which Bun never reuses: borrow it.
      this.body = input.subarray(this.#inputStart, this.#inputStart + length);
      this.#inputStart += length;
      return this.#dispatch();
    }
    const take = Math.min(available, length - this.#bodyReceived);
    worker.body.set(input.subarray(this.#inputStart, this.#inputStart + take), this.#bodyReceived);
    this.#bodyReceived += take;
    this.#inputStart += take;
    if (this.#bodyReceived < length) return false;
    this.body = worker.body.subarray(0, length);
    return this.#dispatch();
  }

  // ---- handler ------------------------------------------------------------------------------

  #dispatch(): boolean {
    this.state = stateHandling;
    this.#handlerRunning = true;
    this.#setDeadline("request", this.context.limits.requestDeadlineMs);
    const exchange = new Exchange(this, this.generation);
    this.exchange = exchange;
    let result: void | Promise<void>;
    try {
      result = this.context.handler(exchange);
    } catch (error) {
      this.#handlerSettled(exchange, error, true);
      return this.state === stateReadingHead;
    }
    if (result !== undefined && typeof (result as Promise<void>).then === "function") {
      (result as Promise<void>).then(
        () => this.#handlerSettled(exchange, undefined, false),
        (error: unknown) => this.#handlerSettled(exchange, error, true),
      );
      return false;
    }
    this.#handlerSettled(exchange, undefined, false);
    return this.state === stateReadingHead;
  }

  #handlerSettled(exchange: Exchange, _error: unknown, failed: boolean): void {
    if (failed) this.context.stats.handlerFailures++;
    if (exchange !== this.exchange) {
      // The request ended without this handler (disconnect, deadline): its worker was left to
      // it until now.
      const abandoned = exchange.abandonedWorker;
      exchange.abandonedWorker = null;
      if (abandoned !== null) this.context.giveWorker(abandoned);
      return;
    }
    this.#handlerRunning = false;
    if (this.stream.started) {
      if (failed) this.stream.abort();
      else if (!exchange.detached) this.stream.finishFromEngine();
      this.pump();
      return;
    }
    if (failed) {
      this.draft.reset();
      this.draft.status = 500;
      if (this.draft.worker !== null) {
        this.draft.writeText("Internal Server Error\n");
        this.draft.appendHeader("Content-Type", "text/plain; charset=utf-8");
      }
    } else if (exchange.detached) {
      return;
    }
    this.publish();
  }

  /** Publishes the draft (the handler returned, or a detached exchange asked for it). */
  publish(): void {
    this.#publish();
    this.pump();
  }

  #headRoomNeeded(): number {
    return this.draft.headerLength + engineHeaderReserveBytes;
  }

  /** The Connection header a response carries, and whether the connection closes after it. */
  connectionDisposition(): "close" | "keep-alive" | "default" {
    const keepAlive =
      this.head.keepAlive &&
      !this.draft.closeRequested &&
      !this.context.stopping &&
      !this.#closeAfterOutput;
    if (!keepAlive) {
      this.#closeAfterOutput = true;
      return "close";
    }
    return this.head.versionMinor === 0 ? "keep-alive" : "default";
  }

  #publish(): void {
    const output = this.output;
    if (output.room < this.#headRoomNeeded()) {
      this.#publishWaiting = true;
      return;
    }
    const draft = this.draft;
    const disposition = this.connectionDisposition();
    output.end = draft.writeHead(
      output.buffer,
      output.end,
      this.context.date.bytes,
      "length",
      disposition,
    );
    const bodyLength = draft.bodyForbidden || this.isHeadRequest ? 0 : draft.bodyLength;
    if (bodyLength > 0) {
      if (draft.hasBorrowed) {
        output.setSegment(draft.borrowed, 0, bodyLength, false, true);
      } else {
        const start = draft.stagingStart;
        const staging = draft.worker!.staging;
        if (bodyLength <= output.room) {
          copyBytes(staging, start, start + bodyLength, output.buffer, output.end);
          output.end += bodyLength;
        } else {
          output.setSegment(staging, start, start + bodyLength, true, false);
        }
      }
    }
    this.context.stats.countResponse(draft.status);
    this.requestDone();
  }

  /** The response is fully handed to the output: the next request may start. */
  requestDone(): void {
    this.exchange = null;
    this.generation++;
    this.#handlerRunning = false;
    this.state = this.#closeAfterOutput ? stateClosing : stateReadingHead;
    const worker = this.draft.worker;
    if (worker !== null && !this.output.segmentInStaging) {
      this.draft.worker = null;
      this.context.giveWorker(worker);
    }
    if (this.state === stateReadingHead) {
      this.#setDeadline("idle", this.context.limits.idleTimeoutMs);
    }
  }

  // ---- workers for long-lived responses -----------------------------------------------------

  /** Gives the worker back while the response waits (its staging must be empty). */
  releaseWorker(): void {
    const worker = this.draft.worker;
    if (worker === null) return;
    if (this.stream.busy || this.draft.stagedLength > 0 || this.draft.hasBorrowed) {
      throw new TypeError("corral: the worker can only be given back with nothing staged");
    }
    this.draft.worker = null;
    this.context.giveWorker(worker);
  }

  /** Takes a worker again; resolves when one is free, rejects when the client goes first. */
  acquireWorker(): Promise<void> {
    if (this.draft.worker !== null) return Promise.resolve();
    if (this.socket === null) return Promise.reject(new ClientGoneError());
    const worker = this.context.takeWorker();
    if (worker !== undefined) {
      this.draft.worker = worker;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      this.#reacquireResolve = resolve;
      this.#reacquireReject = reject;
      this.context.enqueueReacquire(this.slot);
    });
  }

  /** The exchange's handler is still running: a closing connection leaves it its worker. */
  get handlerRunning(): boolean {
    return this.#handlerRunning;
  }

  // ---- errors, deadlines, teardown ------------------------------------------------------------

  /** Answers an engine error and closes the connection once it is written. */
  fail(name: EngineErrorName): void {
    this.context.stats.countError(name);
    this.context.leaveQueues(this.slot);
    this.#abortExchange(new ClientGoneError(`the request failed: ${name}`));
    this.#releaseWorkerUnlessHandlerRuns();
    this.#endExchange();
    this.#closeAfterOutput = true;
    this.#lingerAfterOutput = true;
    this.state = stateClosing;
    this.#input = null;
    this.#pendingError = name;
    this.deadlineKind = "linger";
    this.deadlineAt = this.context.now + this.context.limits.writeStallMs;
    this.pump();
  }

  #appendError(name: EngineErrorName): void {
    const row = this.context.errorResponses[name];
    const output = this.output;
    const date = this.context.date.bytes;
    output.buffer.set(row.prefix, output.end);
    output.buffer.set(date, output.end + row.prefix.length);
    output.buffer.set(row.suffix, output.end + row.prefix.length + date.length);
    output.end += row.prefix.length + date.length + row.suffix.length;
    this.context.stats.countResponse(row.status);
  }

  #setDeadline(kind: DeadlineKind | "linger", afterMs: number): void {
    this.deadlineKind = kind;
    this.deadlineAt = this.context.now + afterMs;
  }

  /** Called by the sweep: enforces the deadline of the current state and the write stall. */
  checkDeadlines(now: number): void {
    if (this.socket === null) return;
    const stats = this.context.stats;
    if (this.#writeBlocked && now - this.#lastWriteProgressAt >= this.context.limits.writeStallMs) {
      stats.deadlineCloses.writeStall++;
      this.#abortExchange(new ClientGoneError("the client stopped reading"));
      this.terminate();
      return;
    }
    if (now < this.deadlineAt) return;
    const kind = this.deadlineKind;
    if (kind === "linger") {
      this.close();
      return;
    }
    if (kind === "idle" && (this.#headStarted || this.output.pending)) return;
    stats.deadlineCloses[kind]++;
    switch (kind) {
      case "idle":
        this.close();
        return;
      case "header":
        this.fail("headerTimeout");
        return;
      case "body":
        this.fail("bodyTimeout");
        return;
      case "request":
        if (this.stream.headSent) {
          this.#abortExchange(new ClientGoneError("the request deadline passed"));
          this.terminate();
        } else {
          this.fail("requestTimeout");
        }
        return;
      case "stream":
        this.#abortExchange(new ClientGoneError("the stream deadline passed"));
        this.terminate();
    }
  }

  /** Starts the stream deadline (the request deadline no longer applies). */
  streamStarted(): void {
    this.#setDeadline("stream", this.context.limits.streamDeadlineMs);
  }

  #abortExchange(reason: Error): void {
    const exchange = this.exchange;
    if (exchange === null) return;
    exchange.abort(reason);
    this.stream.clientGone(reason);
    const reject = this.#reacquireReject;
    if (reject !== null) {
      this.#reacquireResolve = null;
      this.#reacquireReject = null;
      this.context.leaveQueues(this.slot);
      reject(reason);
    }
  }

  /** Makes the current exchange stale without publishing it. */
  #endExchange(): void {
    if (this.exchange === null) return;
    this.exchange = null;
    this.generation++;
    this.#handlerRunning = false;
    this.#publishWaiting = false;
    this.stream.reset();
  }

  #releaseWorkerUnlessHandlerRuns(): void {
    const worker = this.draft.worker;
    if (worker === null) return;
    this.draft.worker = null;
    if (this.#handlerRunning && this.exchange !== null) {
      this.exchange.abandonedWorker = worker;
    } else {
      this.context.giveWorker(worker);
    }
  }

  #releaseAll(): void {
    this.context.leaveQueues(this.slot);
    this.#releaseWorkerUnlessHandlerRuns();
    this.exchange = null;
    this.#handlerRunning = false;
    this.#publishWaiting = false;
    this.#pendingError = null;
    this.#input = null;
    this.#headStarted = false;
    this.output.discard();
    this.stream.reset();
    this.deadlineAt = Number.POSITIVE_INFINITY;
  }

  #pause(): void {
    if (this.#paused || this.socket === null) return;
    this.#paused = true;
    this.socket.pause();
  }

  #resume(): void {
    if (!this.#paused || this.socket === null) return;
    this.#paused = false;
    this.socket.resume();
  }
}
