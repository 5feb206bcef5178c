import { type EngineErrorName, errorNameOf } from "../errors.ts";
import { Exchange } from "../exchange.ts";
import type { Limits } from "../limits.ts";
import { engineHeaderReserveBytes } from "../limits.ts";
import { ParsedHead } from "../parser/parsed-head.ts";
import type { HeadLimits } from "../parser/request-head.ts";
import { ClientGoneError } from "../response-errors.ts";
import type { DeadlineKind, StatsCounters } from "../stats.ts";
import { asciiBytes } from "./ascii.ts";
import type { EngineContext } from "./engine-context.ts";
import type { EngineSocket } from "./engine-socket.ts";
import { errorResponseMaxBytes } from "./error-responses.ts";
import type { ExchangeHost } from "./exchange-host.ts";
import { OutputChannel, outputBlocked, outputClosed } from "./output-channel.ts";
import { PeerAddress } from "./peer-address.ts";
import { inputComplete, inputIncomplete, RequestInput, releaseChunk } from "./request-input.ts";
import { ResponseDraft } from "./response-draft.ts";
import { StreamFraming, type StreamHost } from "./stream-framing.ts";
import { StreamedBody, type StreamedBodyHost } from "./streamed-body.ts";
import type { WorkerSlot } from "./worker-table.ts";

const stateReadingHead = 0;
const stateWaitingWorker = 1;
const stateReadingBody = 2;
const stateHandling = 3;
const stateClosing = 4;
const stateClosed = 5;

const continueLine = asciiBytes("HTTP/1.1 100 Continue\r\n\r\n");
/**
 * Pipelined requests one connection may dispatch before it lets the others run. One socket
 * chunk can carry 16,000 small requests; served in one go, 70 such connections made a side
 * client wait seconds for its turn.
 */
const requestsPerTurn = 64;
/** How long a connection closed after an error keeps reading (and dropping) what the client sends. */
const lingerMs = 1000;

/**
 * One connection slot: the request state machine from head to response, over a socket that is
 * attached while the slot is in use. The input side (`RequestInput`) parses what arrives, the
 * output side (`OutputChannel`) holds and writes what goes out, and this class decides between
 * them: one `pump` runs publish, input, dispatch and output so that each input chunk is answered
 * with one write. Every buffer it uses was reserved at startup.
 */
export class Connection implements ExchangeHost, StreamHost, StreamedBodyHost {
  readonly slot: number;
  readonly context: EngineContext;
  readonly limits: Limits;
  readonly stats: StatsCounters;
  socket: EngineSocket | null = null;
  generation = 0;
  state = stateClosed;
  readonly head: ParsedHead;
  readonly input: RequestInput;
  readonly output: OutputChannel;
  readonly draft: ResponseDraft;
  readonly stream: StreamFraming;
  /** The request body when the handler streams it. */
  readonly upload: StreamedBody;
  exchange: Exchange | null = null;
  readonly peer = new PeerAddress();
  isHeadRequest = false;
  lastPath = "";
  lastQuery = "";
  deadlineAt = Number.POSITIVE_INFINITY;
  deadlineKind: DeadlineKind | "linger" = "idle";

  /**
   * The head parser's limits: with `streamBodies` a declared length may reach the streamed limit;
   * which limit applies is decided once the application chose (`#beginStreamedBody`).
   */
  readonly #headLimits: HeadLimits;
  /** Output room a request needs before it is dispatched: its whole response head always fits. */
  readonly #dispatchRoom: number;
  #paused = false;
  #handlerRunning = false;
  #closeAfterOutput = false;
  #pendingError: EngineErrorName | null = null;
  /** Whether the pending error answers a HEAD request (decided before the input is let go). */
  #pendingErrorForHead = false;
  #lingerAfterOutput = false;
  /** Whether this connection is listed by the blocked-output rule as holding a worker. */
  #holdingWhileBlocked = false;
  #pumping = false;
  #pumpAgain = false;
  /** Requests this connection may still dispatch before it yields to the event loop. */
  #turnBudget = requestsPerTurn;
  #turnScheduled = false;
  readonly #nextTurn: () => void;
  #grantedWorker: WorkerSlot | null = null;
  #reacquireResolve: (() => void) | null = null;
  #reacquireReject: ((error: Error) => void) | null = null;
  readonly runGrant: () => void;

  constructor(slot: number, context: EngineContext, headBuffer: Uint8Array, output: Uint8Array) {
    this.slot = slot;
    this.context = context;
    this.limits = context.limits;
    this.stats = context.stats;
    this.head = new ParsedHead(context.limits.maxHeaderCount);
    this.input = new RequestInput(headBuffer, context.stats, context.limits.maxUnreadInputBytes);
    this.output = new OutputChannel(output);
    this.draft = new ResponseDraft(context.limits, context.stats);
    this.stream = new StreamFraming(this);
    this.upload = new StreamedBody(this, context.limits);
    const limits = context.limits;
    this.#headLimits =
      context.streamBodies === null
        ? limits
        : {
            ...limits,
            maxBodyBytes: Math.max(limits.maxBodyBytes, limits.maxStreamedBodyBytes),
          };
    this.#dispatchRoom = context.limits.maxResponseHeaderBytes + engineHeaderReserveBytes;
    this.runGrant = () => this.#runGrant();
    this.#nextTurn = () => {
      this.#turnScheduled = false;
      this.pump();
    };
  }

  /** The request body, once read (a view of a socket chunk or of the worker's body storage). */
  get body(): Uint8Array {
    return this.input.body;
  }

  /** The cached Date header line. */
  get dateLine(): Uint8Array {
    return this.context.date.bytes;
  }

  /** Attaches a newly accepted socket. */
  open(socket: EngineSocket): void {
    this.socket = socket;
    this.peer.forget();
    this.generation++;
    this.state = stateReadingHead;
    this.#closeAfterOutput = false;
    this.#pendingError = null;
    this.#lingerAfterOutput = false;
    this.#paused = false;
    this.input.discard();
    this.output.discard();
    // The first request of a connection gets the header deadline, later ones the idle timeout.
    this.#setDeadline("idle", this.limits.headerDeadlineMs);
    this.context.connectionIdle(this.slot);
  }

  /**
   * Whether the connection may be closed to make room: it waits for a request and owes nothing,
   * or it only lingers after an error answer that is written already.
   */
  get idle(): boolean {
    if (this.socket !== null && this.deadlineKind === "linger" && this.state === stateClosing) {
      return !this.output.pending && this.#pendingError === null;
    }
    return (
      this.socket !== null &&
      this.state === stateReadingHead &&
      !this.input.headStarted &&
      !this.input.pending &&
      !this.output.pending &&
      this.#pendingError === null &&
      !this.#closeAfterOutput
    );
  }

  // ---- events -------------------------------------------------------------------------------

  /**
   * A chunk arrived; `owned` when it is the engine's to free once used (a socket chunk), false
   * for bytes an in-memory caller still owns.
   */
  onData(chunk: Uint8Array, owned: boolean): void {
    this.stats.bytesIn += chunk.length;
    if (this.state === stateClosing || this.state === stateClosed) {
      if (owned) releaseChunk(chunk);
      return;
    }
    this.input.receive(chunk, owned);
    if (this.upload.waiting) this.upload.supply();
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
    // Others close after their current response, which carries `Connection: close`.
    if (this.socket !== null && this.state === stateReadingHead && !this.input.headStarted) {
      if (!this.output.pending) this.close();
    }
  }

  /** Aborts the connection at once (RST), for stalled writers and forced stops. */
  terminate(): void {
    const socket = this.socket;
    if (socket === null) return;
    this.state = stateClosing;
    socket.terminate();
    if (this.socket !== null) this.onClose();
  }

  /** Closed by the blocked-output rule: the client stopped reading and others need the worker. */
  closeStalled(): void {
    this.stats.blockedOutputCloses++;
    this.#abortExchange(new ClientGoneError("the client stopped reading"));
    this.terminate();
  }

  // ---- the driver ---------------------------------------------------------------------------

  /** Runs everything that can run now: an error answer, stream frames, input, output. */
  pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    this.#turnBudget = requestsPerTurn;
    try {
      do {
        this.#pumpAgain = false;
        if (this.socket === null) break;
        if (this.#pendingError !== null && this.output.room >= errorResponseMaxBytes) {
          this.#appendError(this.#pendingError);
          this.#pendingError = null;
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
    this.#adjustReading();
  }

  /**
   * Reads only what can be used: bytes that wait (a pipelined request behind a response, or
   * behind blocked output) pause the socket, so a connection holds at most one unconsumed chunk;
   * so does dropped input (reading what is only thrown away would cost the others time).
   */
  #adjustReading(): void {
    if (this.socket === null) return;
    const state = this.state;
    if (this.input.pending || this.input.dropping || state === stateWaitingWorker) {
      this.#pause();
      if (state === stateReadingHead) this.#keepUnreadInput();
    } else if (state === stateReadingHead || state === stateReadingBody) {
      this.#resume();
      if (this.idle) this.context.connectionIdle(this.slot);
    } else if (this.upload.open) {
      // A streamed body is read only while the handler waits for it.
      if (this.upload.waiting) this.#resume();
      else this.#pause();
    }
  }

  /**
   * Pipelined requests wait unread (the turn is over, or the client reads no answers): they are
   * kept in the head buffer, or in their socket chunk within `maxUnreadInputBytes` while the
   * client still reads; otherwise they are dropped and the connection closes once its answers
   * are written (RFC 9112 §9.3.2: a client retries pipelined requests left unanswered).
   */
  #keepUnreadInput(): void {
    const segment = this.output.segment;
    if (this.input.park(segment, !this.output.blocked)) return;
    this.input.dropPending(segment);
    this.#closeAfterOutput = true;
    this.stats.pipelinedInputDrops++;
  }

  #requestInProgress(): boolean {
    return this.state !== stateReadingHead && this.state !== stateClosing;
  }

  /** Writes pending output; returns true when all of it went out. */
  #writeOutput(): boolean {
    const output = this.output;
    const wasBlocked = output.blocked;
    const progressAt = output.lastProgressAt;
    const result = output.writeTo(this.socket!, this.stats, this.context.now);
    if (result === outputClosed) {
      this.onClose();
      return false;
    }
    if (output.blocked !== wasBlocked) this.stats.blockedConnections += output.blocked ? 1 : -1;
    if (result === outputBlocked) {
      this.#syncBlockedHold(output.lastProgressAt !== progressAt);
      return false;
    }
    this.#outputDone();
    this.#syncBlockedHold(false);
    this.#pumpAgain = true;
    return true;
  }

  /**
   * Tells the blocked-output rule whether this connection holds a worker while its output is
   * blocked; a new holder may push blocked holders past their share (see blocked-output.ts).
   */
  #syncBlockedHold(progressed: boolean): void {
    const holding = this.output.blocked && this.draft.worker !== null && this.socket !== null;
    if (holding === this.#holdingWhileBlocked) {
      if (holding && progressed) this.context.blockedOutput.progressed(this.slot);
      return;
    }
    this.#holdingWhileBlocked = holding;
    this.context.blockedOutput.setHolding(this.slot, holding);
    if (holding) this.context.reclaimBlockedWorker();
  }

  #outputDone(): void {
    // A staged body written in place held the worker; the request itself may be over already.
    const worker = this.draft.worker;
    if (worker !== null && this.state === stateReadingHead && !this.#handlerRunning) {
      this.draft.worker = null;
      this.context.giveWorker(worker);
    }
    this.stream.outputDone();
    if (this.state === stateReadingHead && !this.input.headStarted) {
      this.#setDeadline("idle", this.limits.idleTimeoutMs);
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
    this.input.discard();
    this.#resume();
    this.socket?.shutdown();
    this.#setDeadline("linger", lingerMs);
    this.context.connectionIdle(this.slot);
  }

  // ---- input --------------------------------------------------------------------------------

  #consumeInput(): void {
    const output = this.output;
    // Rule 1 of blocked-output.ts: nothing new is dispatched while earlier output is blocked or
    // while the output lacks room for a whole response head (it is written first).
    while (this.socket !== null && !output.blocked && output.segment === null) {
      if (this.#closeAfterOutput) return;
      if (this.state === stateReadingHead) {
        if (this.#turnBudget === 0) {
          this.#yieldTurn();
          return;
        }
        if (output.room < this.#dispatchRoom || !this.#readHead()) return;
      } else if (this.state === stateReadingBody) {
        if (!this.#readBody()) return;
      } else {
        return;
      }
    }
  }

  /** Lets other connections run; this one goes on from the next turn of the event loop. */
  #yieldTurn(): void {
    if (this.#turnScheduled || !this.input.pending) return;
    this.#turnScheduled = true;
    setImmediate(this.#nextTurn);
  }

  #readHead(): boolean {
    const input = this.input;
    if (!input.pending) return false;
    if (!input.headStarted) {
      this.context.connectionBusy(this.slot);
      this.#setDeadline("header", this.limits.headerDeadlineMs);
    }
    const result = input.readHead(this.head, this.#headLimits);
    if (result === inputIncomplete) return false;
    if (result !== inputComplete) {
      this.fail(errorNameOf(result));
      return false;
    }
    this.stats.requests++;
    this.isHeadRequest = this.#methodIsHead();
    input.expectBody(this.head);
    const worker = this.context.takeWorker();
    if (worker !== undefined) {
      this.#beginBody(worker);
      return true;
    }
    if (!this.context.enqueueRequest(this.slot)) {
      this.fail("queueFull");
      return false;
    }
    this.state = stateWaitingWorker;
    this.#setDeadline("request", this.limits.requestDeadlineMs);
    this.context.reclaimBlockedWorker();
    return false;
  }

  /** Whether the head parsed so far is a HEAD request (its answers carry no content). */
  #methodIsHead(): boolean {
    const head = this.head;
    if (!head.requestLineDone || head.methodEnd - head.methodStart !== 4) return false;
    const buffer = head.buffer;
    const method = head.base + head.methodStart;
    return (
      buffer[method] === 0x48 &&
      buffer[method + 1] === 0x45 &&
      buffer[method + 2] === 0x41 &&
      buffer[method + 3] === 0x44
    );
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
    this.#setDeadline("body", this.limits.bodyDeadlineMs);
    if (this.context.streamBodies !== null && this.input.expectsBody) {
      if (this.#beginStreamedBody(worker)) return;
    }
    // RFC 9110 §10.1.1: 100-continue only once the request is accepted, and only when the
    // client is still waiting (no body bytes have come yet). The dispatch room covers the line.
    if (this.head.expectContinue && this.input.expectsBody && !this.input.pending) {
      this.output.append(continueLine);
      this.stats.countResponse(100);
    }
  }

  /**
   * Asks the application whether this body is streamed; when it is, dispatches now (the handler
   * reads the body as it arrives). Returns true when the request left the body-reading state:
   * streamed, or refused for its declared length.
   */
  #beginStreamedBody(worker: WorkerSlot): boolean {
    const exchange = new Exchange(this, this.generation);
    this.exchange = exchange;
    let streamed: boolean;
    try {
      streamed = this.context.streamBodies!(exchange) === true;
    } catch (error) {
      // Answered like a handler that threw; the unread body closes the connection.
      this.upload.begin(worker.window);
      this.state = stateHandling;
      this.#handlerRunning = true;
      this.#handlerSettled(exchange, error, true);
      return true;
    }
    const declared = this.head.contentLength;
    const limit = streamed ? this.limits.maxStreamedBodyBytes : this.limits.maxBodyBytes;
    if (declared > limit) {
      this.fail("bodyTooLarge");
      return true;
    }
    if (!streamed) return false;
    this.upload.begin(worker.window);
    this.#dispatch();
    return true;
  }

  bodyStarted(): void {
    // RFC 9110 §10.1.1: the client waiting for 100-continue is told to send once the handler
    // asks for the body, and only when no body byte has come yet.
    if (
      this.head.expectContinue &&
      this.upload.received === 0 &&
      !this.input.pending &&
      !this.stream.started
    ) {
      this.output.append(continueLine);
      this.stats.countResponse(100);
      this.pump();
    }
  }

  bodyProgressed(): void {
    // The body deadline counts from the last progress: a slow uploader that moves is fine.
    if (this.deadlineKind !== "stream") this.#setDeadline("body", this.limits.bodyDeadlineMs);
    this.#adjustReading();
  }

  bodyEnded(): void {
    if (this.deadlineKind !== "stream") {
      this.#setDeadline("request", this.limits.requestDeadlineMs);
    }
  }

  bodyFailed(name: EngineErrorName): void {
    if (!this.stream.headSent) {
      this.fail(name);
      return;
    }
    // A response head is out already: no error answer can follow it.
    this.stats.countError(name);
    this.#abortExchange(new ClientGoneError(`the request body failed: ${name}`));
    this.terminate();
  }

  #readBody(): boolean {
    const result = this.input.readBody(this.draft.worker!.body, this.limits);
    if (result === inputIncomplete) return false;
    if (result !== inputComplete) {
      this.fail(errorNameOf(result));
      return false;
    }
    return this.#dispatch();
  }

  // ---- handler ------------------------------------------------------------------------------

  #dispatch(): boolean {
    this.context.youngCollection.count();
    this.#turnBudget--;
    this.state = stateHandling;
    this.#handlerRunning = true;
    this.#setDeadline("request", this.limits.requestDeadlineMs);
    // `#beginStreamedBody` may have made the exchange already (to ask the application).
    const exchange = this.exchange ?? new Exchange(this, this.generation);
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
    if (failed) this.stats.handlerFailures++;
    if (exchange !== this.exchange) {
      // The request ended without this handler (disconnect, deadline): its worker was left to
      // it until now.
      const abandoned = exchange.abandonedWorker;
      exchange.abandonedWorker = null;
      if (abandoned !== null) this.context.giveWorker(abandoned);
      return;
    }
    this.#handlerRunning = false;
    const stream = this.stream;
    if (stream.started && (stream.headSent || !failed)) {
      if (failed) stream.abort();
      else if (!exchange.detached) stream.finishFromEngine();
      this.pump();
      return;
    }
    if (failed) {
      // A stream with nothing sent yet is answered like any failed handler.
      if (stream.started) stream.discard();
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
    // The room for the head was there at dispatch, and nothing else of this connection has
    // been appended since: the head always fits.
    this.output.appendResponse(
      this.draft,
      this.context.date.bytes,
      this.connectionDisposition(),
      this.isHeadRequest,
    );
    this.stats.countResponse(this.draft.status);
    this.requestDone();
    this.pump();
  }

  /** The Connection header a response carries, and whether the connection closes after it. */
  connectionDisposition(): "close" | "keep-alive" | "default" {
    const keepAlive =
      this.head.keepAlive &&
      !this.draft.closeRequested &&
      !this.context.stopping &&
      !this.#closeAfterOutput &&
      !this.upload.open;
    if (!keepAlive) {
      // A streamed body the handler did not read to its end: what the client still sends is
      // read and dropped for a moment after the answer, so that it reads the answer.
      if (this.upload.open) this.#lingerAfterOutput = true;
      this.#closeAfterOutput = true;
      return "close";
    }
    return this.head.versionMinor === 0 ? "keep-alive" : "default";
  }

  /** The response is fully handed to the output: the next request may start. */
  requestDone(): void {
    this.exchange = null;
    this.generation++;
    this.#handlerRunning = false;
    this.upload.reset();
    this.input.requestEnded(this.output.segment);
    this.state = this.#closeAfterOutput ? stateClosing : stateReadingHead;
    const worker = this.draft.worker;
    if (worker !== null && !this.output.segmentInStaging) {
      this.draft.worker = null;
      this.context.giveWorker(worker);
      this.#syncBlockedHold(false);
    }
    if (this.state === stateReadingHead) {
      this.#setDeadline("idle", this.limits.idleTimeoutMs);
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
    this.#syncBlockedHold(false);
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
    this.stats.countError(name);
    this.context.leaveQueues(this.slot);
    this.#abortExchange(new ClientGoneError(`the request failed: ${name}`));
    this.#releaseWorkerUnlessHandlerRuns();
    this.#endExchange();
    this.#closeAfterOutput = true;
    this.#lingerAfterOutput = true;
    this.state = stateClosing;
    this.#pendingErrorForHead = this.#methodIsHead();
    this.input.discard();
    this.#pendingError = name;
    this.deadlineKind = "linger";
    this.deadlineAt = this.context.now + this.limits.writeStallMs;
    this.pump();
  }

  #appendError(name: EngineErrorName): void {
    const row = this.context.errorResponses[name];
    this.output.appendError(row, this.context.date.bytes, this.#pendingErrorForHead);
    this.stats.countResponse(row.status);
  }

  #setDeadline(kind: DeadlineKind | "linger", afterMs: number): void {
    this.deadlineKind = kind;
    this.deadlineAt = this.context.now + afterMs;
  }

  /** Called by the sweep: enforces the deadline of the current state and the write stall. */
  checkDeadlines(now: number): void {
    if (this.socket === null) return;
    const stats = this.stats;
    const output = this.output;
    if (output.blocked && now - output.lastProgressAt >= this.limits.writeStallMs) {
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
    if (kind === "idle" && (this.input.headStarted || output.pending)) return;
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
    this.#setDeadline("stream", this.limits.streamDeadlineMs);
  }

  #abortExchange(reason: Error): void {
    const exchange = this.exchange;
    if (exchange === null) return;
    exchange.abort(reason);
    this.stream.clientGone(reason);
    this.upload.clientGone(reason);
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
    this.stream.reset();
    this.upload.reset();
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
    this.context.connectionBusy(this.slot);
    if (this.output.blocked) this.stats.blockedConnections--;
    if (this.#holdingWhileBlocked) {
      this.#holdingWhileBlocked = false;
      this.context.blockedOutput.setHolding(this.slot, false);
    }
    this.#releaseWorkerUnlessHandlerRuns();
    this.exchange = null;
    this.#handlerRunning = false;
    this.#pendingError = null;
    this.upload.reset();
    this.input.discard();
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
