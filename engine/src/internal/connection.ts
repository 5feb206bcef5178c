import { type EngineErrorName, errorNameOf } from "../errors.ts";
import { Exchange } from "../exchange.ts";
import type { Limits } from "../limits.ts";
import { engineHeaderReserveBytes } from "../limits.ts";
import { ParsedHead } from "../parser/parsed-head.ts";
import type { HeadLimits } from "../parser/request-head.ts";
import { ClientGoneError } from "../response-errors.ts";
import type { DeadlineKind, StatsCounters } from "../stats.ts";
import { asciiBytes } from "./ascii.ts";
import { type DeadlineHost, enforceDeadline } from "./connection-deadlines.ts";
import { pathDispatchKey } from "./dispatch-key.ts";
import type { EngineContext } from "./engine-context.ts";
import type { EngineSocket } from "./engine-socket.ts";
import { errorResponseMaxBytes } from "./error-responses.ts";
import type { ExchangeHost } from "./exchange-host.ts";
import { OutputChannel, outputBlocked, outputClosed } from "./output-channel.ts";
import { PeerAddress } from "./peer-address.ts";
import { inputComplete, inputIncomplete, RequestInput } from "./request-input.ts";
import { ResponseDraft } from "./response-draft.ts";
import { StreamFraming, type StreamHost } from "./stream-framing.ts";
import { StreamedBody, type StreamedBodyHost } from "./streamed-body.ts";
import { type LeaseHost, WorkerLease } from "./worker-lease.ts";

/** Where the request in the connection is: reading, waiting for a worker, handled, or ending. */
const readingHead = 0;
const waitingWorker = 1;
const readingBody = 2;
const handling = 3;
const closing = 4;
const closed = 5;

/**
 * How the connection ends once its output is written: it stays open, it closes, or it closes
 * and first lingers (reads and drops what the client still sends, so it reads the answer).
 */
type Ending = "stay" | "close" | "linger";

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
 * output side (`OutputChannel`) holds and writes what goes out, the lease (`WorkerLease`) is its
 * one claim on a worker, and this class decides between them: one `pump` runs publish, input,
 * dispatch and output so that each input chunk is answered with one write. Every buffer it uses
 * was reserved at startup.
 */
export class Connection
  implements ExchangeHost, StreamHost, StreamedBodyHost, LeaseHost, DeadlineHost
{
  readonly slot: number;
  readonly context: EngineContext;
  readonly limits: Limits;
  readonly stats: StatsCounters;
  socket: EngineSocket | null = null;
  generation = 0;
  state = closed;
  readonly head: ParsedHead;
  readonly input: RequestInput;
  readonly output: OutputChannel;
  readonly draft: ResponseDraft;
  readonly stream: StreamFraming;
  /** The request body when the handler streams it. */
  readonly upload: StreamedBody;
  readonly lease: WorkerLease;
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
  #ending: Ending = "stay";
  #pendingError: EngineErrorName | null = null;
  /** Whether the pending error answers a HEAD request (decided before the input is let go). */
  #pendingErrorForHead = false;
  #pumping = false;
  #pumpAgain = false;
  /** Requests this connection may still dispatch before it yields to the event loop. */
  #turnBudget = requestsPerTurn;
  #turnScheduled = false;
  readonly #nextTurn: () => void;

  constructor(slot: number, context: EngineContext, headBuffer: Uint8Array, output: Uint8Array) {
    this.slot = slot;
    this.context = context;
    this.limits = context.limits;
    this.stats = context.stats;
    this.head = new ParsedHead(context.limits.maxHeaderCount);
    this.input = new RequestInput(headBuffer);
    this.output = new OutputChannel(output);
    this.draft = new ResponseDraft(context.limits, context.stats);
    this.stream = new StreamFraming(this);
    this.upload = new StreamedBody(this, context.limits);
    this.lease = new WorkerLease(slot, this, context.scheduler);
    const limits = context.limits;
    this.#headLimits =
      context.streamBodies === null
        ? limits
        : {
            ...limits,
            maxBodyBytes: Math.max(limits.maxBodyBytes, limits.maxStreamedBodyBytes),
          };
    this.#dispatchRoom = context.limits.maxResponseHeaderBytes + engineHeaderReserveBytes;
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
    this.state = readingHead;
    this.#ending = "stay";
    this.#pendingError = null;
    this.#paused = false;
    this.input.discard();
    this.output.discard();
    // The first request of a connection gets the header deadline, later ones the idle timeout.
    this.setDeadline("idle", this.limits.headerDeadlineMs);
    this.context.connectionIdle(this.slot);
  }

  /**
   * Whether the connection may be closed to make room: it waits for a request and owes nothing,
   * or it only lingers after an error answer that is written already.
   */
  get idle(): boolean {
    if (this.socket === null || this.output.pending || this.#pendingError !== null) return false;
    if (this.state === closing) return this.deadlineKind === "linger";
    return (
      this.state === readingHead &&
      !this.input.headStarted &&
      !this.input.pending &&
      this.#ending === "stay"
    );
  }

  // ---- events -------------------------------------------------------------------------------

  /**
   * A chunk arrived; `owned` when it is the engine's to free once used (a socket chunk), false
   * for bytes an in-memory caller still owns.
   */
  onData(chunk: Uint8Array, owned: boolean): void {
    this.stats.bytesIn += chunk.length;
    if (this.state === closing || this.state === closed) return;
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
    this.abortExchange(new ClientGoneError("the client closed the connection"));
    if (this.state === readingHead && !this.output.pending) {
      this.close();
      return;
    }
    this.#ending = "close";
    this.pump();
  }

  /** The socket closed (by either side). */
  onClose(): void {
    const socket = this.socket;
    if (socket === null) return;
    // Events Bun may still deliver for this socket must not reach a later user of the slot.
    socket.data = -1;
    this.socket = null;
    const reason = new ClientGoneError();
    this.abortExchange(reason);
    this.context.connectionBusy(this.slot);
    if (this.output.blocked) this.stats.blockedConnections--;
    this.lease.endRequest(this.#handlerRunning && this.exchange !== null, reason);
    this.exchange = null;
    this.#handlerRunning = false;
    this.#pendingError = null;
    this.upload.reset();
    this.input.discard();
    this.output.discard();
    this.stream.reset();
    this.deadlineAt = Number.POSITIVE_INFINITY;
    this.state = closed;
    this.generation++;
    // An abandoned handler keeps the slot with its worker until it settles (#handlerSettled).
    this.context.connectionClosed(this.slot, this.lease.state !== "abandoned");
  }

  /** Closes the socket now; `onClose` does the bookkeeping. */
  close(): void {
    const socket = this.socket;
    if (socket === null) return;
    this.state = closing;
    socket.end();
    // Bun calls close from end(); if it did not, finish the bookkeeping here.
    if (this.socket !== null) this.onClose();
  }

  /** On stop: closes the connection now when it is between requests. */
  closeIfIdle(): void {
    // Others close after their current response, which carries `Connection: close`.
    if (this.socket !== null && this.state === readingHead && !this.input.headStarted) {
      if (!this.output.pending) this.close();
    }
  }

  /** Aborts the connection at once (RST), for stalled writers and forced stops. */
  terminate(): void {
    const socket = this.socket;
    if (socket === null) return;
    this.state = closing;
    socket.terminate();
    if (this.socket !== null) this.onClose();
  }

  /** Closed by the blocked-output rule: the client stopped reading and others need the worker. */
  closeStalled(): void {
    this.stats.blockedOutputCloses++;
    this.abortExchange(new ClientGoneError("the client stopped reading"));
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
          this.#ending !== "stay" &&
          !this.#pumpAgain &&
          this.#pendingError === null &&
          (this.state === readingHead || this.state === closing)
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
   * behind blocked output) pause the socket, so a connection holds at most one unconsumed chunk.
   */
  #adjustReading(): void {
    if (this.socket === null) return;
    const state = this.state;
    if (this.input.pending || state === waitingWorker) {
      this.#pause();
    } else if (state === readingHead || state === readingBody) {
      this.#resume();
      if (this.idle) this.context.connectionIdle(this.slot);
    } else if (this.upload.open) {
      // A streamed body is read only while the handler waits for it.
      if (this.upload.waiting) this.#resume();
      else this.#pause();
    }
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
      this.lease.outputBlocked(true, output.lastProgressAt !== progressAt);
      return false;
    }
    this.#outputDone();
    this.lease.outputBlocked(false, false);
    this.#pumpAgain = true;
    return true;
  }

  #outputDone(): void {
    // A staged body written in place held the worker; the request itself may be over already.
    if (this.lease.state === "held" && this.state === readingHead && !this.#handlerRunning) {
      this.lease.release();
    }
    this.stream.outputDone();
    if (this.state === readingHead && !this.input.headStarted) {
      this.setDeadline("idle", this.limits.idleTimeoutMs);
    }
  }

  #finishClosing(): void {
    if (this.#ending !== "linger") {
      this.close();
      return;
    }
    // After an error answer: send FIN, then read and drop what the client still sends for a
    // moment, so that a client still uploading reads the answer instead of a reset.
    this.#ending = "close";
    this.state = closing;
    this.input.discard();
    this.#resume();
    this.socket?.shutdown();
    this.setDeadline("linger", lingerMs);
    this.context.connectionIdle(this.slot);
  }

  // ---- input --------------------------------------------------------------------------------

  #consumeInput(): void {
    const output = this.output;
    // Rule 1 of blocked-output.ts: nothing new is dispatched while earlier output is blocked or
    // while the output lacks room for a whole response head (it is written first).
    while (this.socket !== null && !output.blocked && output.segment === null) {
      if (this.#ending !== "stay") return;
      if (this.state === readingHead) {
        if (this.#turnBudget === 0) {
          this.#yieldTurn();
          return;
        }
        if (output.room < this.#dispatchRoom || !this.#readHead()) return;
      } else if (this.state === readingBody) {
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
      this.setDeadline("header", this.limits.headerDeadlineMs);
    }
    const result = input.readHead(this.head, this.#headLimits);
    if (result === inputIncomplete) return false;
    if (result !== inputComplete) {
      this.fail(errorNameOf(result));
      return false;
    }
    this.stats.requests++;
    this.isHeadRequest = this.head.isHeadMethod();
    input.expectBody(this.head);
    const exchange = new Exchange(this, this.generation);
    this.exchange = exchange;
    const granted = this.lease.request(this.#dispatchKeyOf(exchange));
    if (granted === "held") {
      this.#beginBody();
      return true;
    }
    if (granted === "none") {
      this.fail("queueFull");
      return false;
    }
    this.state = waitingWorker;
    this.setDeadline("request", this.limits.requestDeadlineMs);
    this.context.scheduler.reclaimBlockedWorker();
    return false;
  }

  #dispatchKeyOf(exchange: Exchange): number {
    const dispatchKey = this.context.dispatchKey;
    if (dispatchKey === null) return pathDispatchKey(this.head);
    try {
      return dispatchKey(exchange);
    } catch {
      // The application's key function failed: the request still runs, under the shared key 0.
      return 0;
    }
  }

  workerGranted(): void {
    if (this.state !== waitingWorker) {
      this.lease.release();
      return;
    }
    this.#beginBody();
    this.pump();
  }

  requestDisplaced(): void {
    if (this.socket !== null && this.state === waitingWorker) this.fail("queueFull");
  }

  #beginBody(): void {
    this.draft.reset();
    this.stream.reset();
    this.state = readingBody;
    this.setDeadline("body", this.limits.bodyDeadlineMs);
    if (this.context.streamBodies !== null && this.input.expectsBody) {
      if (this.#beginStreamedBody()) return;
    }
    // RFC 9110 §10.1.1: 100-continue only once the request is accepted, and only when the
    // client is still waiting (no body bytes have come yet). The dispatch room covers the line.
    if (this.head.expectContinue && this.input.expectsBody && !this.input.pending) {
      this.#sendContinue();
    }
  }

  #sendContinue(): void {
    this.output.append(continueLine);
    this.stats.countResponse(100);
  }

  /**
   * Asks the application whether this body is streamed; when it is, dispatches now (the handler
   * reads the body as it arrives). Returns true when the request left the body-reading state:
   * streamed, or refused for its declared length.
   */
  #beginStreamedBody(): boolean {
    const exchange = this.exchange!;
    let streamed: boolean;
    try {
      streamed = this.context.streamBodies!(exchange) === true;
    } catch (error) {
      // Answered like a handler that threw; the unread body closes the connection.
      this.upload.begin(this.draft.worker!.window);
      this.state = handling;
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
    this.upload.begin(this.draft.worker!.window);
    this.#dispatch();
    return true;
  }

  bodyStarted(): void {
    // RFC 9110 §10.1.1: the client waiting for 100-continue is told to send once the handler
    // asks for the body, and only when no body byte has come yet.
    const waitingForContinue = this.head.expectContinue && this.upload.received === 0;
    if (waitingForContinue && !this.input.pending && !this.stream.started) {
      this.#sendContinue();
      this.pump();
    }
  }

  bodyProgressed(): void {
    // The body deadline counts from the last progress: a slow uploader that moves is fine.
    if (this.deadlineKind !== "stream") this.setDeadline("body", this.limits.bodyDeadlineMs);
    this.#adjustReading();
  }

  bodyEnded(): void {
    if (this.deadlineKind !== "stream") {
      this.setDeadline("request", this.limits.requestDeadlineMs);
    }
  }

  bodyFailed(name: EngineErrorName): void {
    if (!this.stream.headSent) {
      this.fail(name);
      return;
    }
    // A response head is out already: no error answer can follow it.
    this.stats.countError(name);
    this.abortExchange(new ClientGoneError(`the request body failed: ${name}`));
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
    this.state = handling;
    this.#handlerRunning = true;
    this.setDeadline("request", this.limits.requestDeadlineMs);
    const exchange = this.exchange!;
    let result: void | Promise<void>;
    try {
      result = this.context.handler(exchange);
    } catch (error) {
      this.#handlerSettled(exchange, error, true);
      return this.state === readingHead;
    }
    if (result !== undefined && typeof (result as Promise<void>).then === "function") {
      (result as Promise<void>).then(
        () => this.#handlerSettled(exchange, undefined, false),
        (error: unknown) => this.#handlerSettled(exchange, error, true),
      );
      return false;
    }
    this.#handlerSettled(exchange, undefined, false);
    return this.state === readingHead;
  }

  #handlerSettled(exchange: Exchange, _error: unknown, failed: boolean): void {
    if (failed) this.stats.handlerFailures++;
    if (exchange !== this.exchange) {
      // The request ended without this handler (disconnect, deadline): its worker was left to
      // it until now, and a closed connection's slot with it.
      if (this.lease.state === "abandoned") {
        this.lease.settleAbandoned();
        if (this.socket === null) this.context.slotFreed(this.slot);
      }
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
      this.#ending === "stay" &&
      !this.upload.open;
    if (!keepAlive) {
      // A streamed body the handler did not read to its end: what the client still sends is
      // read and dropped for a moment after the answer, so that it reads the answer.
      this.#ending = this.upload.open ? "linger" : "close";
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
    this.state = this.#ending === "stay" ? readingHead : closing;
    // A staged body written in place keeps the worker until it is sent (#outputDone).
    if (this.lease.state === "held" && !this.output.segmentInStaging) this.lease.release();
    if (this.state === readingHead) this.setDeadline("idle", this.limits.idleTimeoutMs);
  }

  // ---- workers for long-lived responses -----------------------------------------------------

  /** Gives the worker back while the response waits (its staging must be empty). */
  releaseWorker(): void {
    if (this.lease.state !== "held") return;
    if (this.stream.busy || this.draft.stagedLength > 0 || this.draft.hasBorrowed) {
      throw new TypeError("corral: the worker can only be given back with nothing staged");
    }
    this.lease.releaseWhileWaiting(this.stream.headSent ? 0 : this.draft.headerLength);
  }

  /** Takes a worker again; resolves when one is free, rejects when the client goes first. */
  acquireWorker(): Promise<void> {
    if (this.socket === null) return Promise.reject(new ClientGoneError());
    return this.lease.reacquire();
  }

  /** The exchange's handler is still running: a closing connection leaves it its worker. */
  get handlerRunning(): boolean {
    return this.#handlerRunning;
  }

  // ---- errors, deadlines, teardown ------------------------------------------------------------

  /** Answers an engine error and closes the connection once it is written. */
  fail(name: EngineErrorName): void {
    this.stats.countError(name);
    const reason = new ClientGoneError(`the request failed: ${name}`);
    this.abortExchange(reason);
    this.lease.endRequest(this.#handlerRunning && this.exchange !== null, reason);
    this.#endExchange();
    this.#ending = "linger";
    this.state = closing;
    this.#pendingErrorForHead = this.head.isHeadMethod();
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

  setDeadline(kind: DeadlineKind | "linger", afterMs: number): void {
    this.deadlineKind = kind;
    this.deadlineAt = this.context.now + afterMs;
  }

  /** Called by the sweep: enforces the deadline of the current state and the write stall. */
  checkDeadlines(now: number): void {
    if (this.socket !== null) enforceDeadline(this, now);
  }

  /** Starts the stream deadline (the request deadline no longer applies). */
  streamStarted(): void {
    this.setDeadline("stream", this.limits.streamDeadlineMs);
  }

  /** Tells the request in progress that it ended early (client gone, deadline, failure). */
  abortExchange(reason: Error): void {
    const exchange = this.exchange;
    if (exchange === null) return;
    exchange.abort(reason);
    this.stream.clientGone(reason);
    this.upload.clientGone(reason);
    // A handler waiting to take its worker back hears it now; it may still answer.
    if (this.lease.state === "reacquiring") this.lease.stopReacquiring(reason);
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
