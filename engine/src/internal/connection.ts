import type { EngineErrorName } from "../errors.ts";
import { Exchange } from "../exchange.ts";
import type { Limits } from "../limits.ts";
import { ParsedHead } from "../parser/parsed-head.ts";
import { ClientGoneError } from "../response-errors.ts";
import type { DeadlineKind, StatsCounters } from "../stats.ts";
import { type DeadlineHost, enforceDeadline } from "./connection-deadlines.ts";
import { ConnectionEnding, type EndingHost } from "./connection-ending.ts";
import type { SlotMemory } from "./connection-parts.ts";
import {
  type ConnectionPhase,
  closed,
  closing,
  type Ending,
  readingBody,
  readingHead,
  waitingWorker,
  webSocketPhase,
} from "./connection-phase.ts";
import type { EngineContext } from "./engine-context.ts";
import type { EngineSocket } from "./engine-socket.ts";
import type { ExchangeHost } from "./exchange-host.ts";
import { HandlerRun, type HandlerRunHost } from "./handler-run.ts";
import { OutputChannel, outputBlocked, outputClosed } from "./output-channel.ts";
import { PeerAddress } from "./peer-address.ts";
import { type AdmissionHost, RequestAdmission, requestsPerTurn } from "./request-admission.ts";
import { RequestInput } from "./request-input.ts";
import { ResponseDraft } from "./response-draft.ts";
import { releaseChunk } from "./socket-chunks.ts";
import { StreamFraming, type StreamHost } from "./stream-framing.ts";
import { StreamedBody } from "./streamed-body.ts";
import { WebSocketSwitch } from "./websocket-switch.ts";
import { WorkerLease } from "./worker-lease.ts";

/**
 * One connection slot: the request state machine from head to response, over a socket that is
 * attached while the slot is in use. The input side (`RequestInput`) parses what arrives, the
 * output side (`OutputChannel`) holds and writes what goes out, the lease (`WorkerLease`) is its
 * one claim on a worker, and this class decides between them: one `pump` runs publish, input,
 * dispatch and output so that each input chunk is answered with one write. Every buffer it uses
 * was reserved at startup.
 */
export class Connection
  implements ExchangeHost, StreamHost, DeadlineHost, AdmissionHost, HandlerRunHost, EndingHost
{
  readonly slot: number;
  readonly context: EngineContext;
  readonly limits: Limits;
  readonly stats: StatsCounters;
  socket: EngineSocket | null = null;
  generation = 0;
  state: ConnectionPhase = closed;
  readonly head: ParsedHead;
  readonly input: RequestInput;
  readonly output: OutputChannel;
  readonly draft: ResponseDraft;
  readonly stream: StreamFraming;
  /** The request body when the handler streams it. */
  readonly upload: StreamedBody;
  readonly lease: WorkerLease;
  readonly admission: RequestAdmission;
  readonly run: HandlerRun;
  /** How the connection ends after an engine error (`ending` says whether it ends at all). */
  readonly closer: ConnectionEnding;
  /** The way to WebSocket: an accepted upgrade, then the session in this slot. */
  readonly webSocket: WebSocketSwitch;
  exchange: Exchange | null = null;
  readonly peer = new PeerAddress();
  isHeadRequest = false;
  lastPath = "";
  lastQuery = "";
  deadlineAt = Number.POSITIVE_INFINITY;
  deadlineKind: DeadlineKind | "linger" = "idle";

  #paused = false;
  /** How the connection ends once its output is written. */
  ending: Ending = "stay";
  #pumping = false;
  #pumpAgain = false;
  /** Requests this connection may still dispatch before it yields to the event loop. */
  turnBudget = requestsPerTurn;
  /** Bytes received on this slot, over every connection it had (the slow-upload rule's count). */
  bytesReceived = 0;

  constructor(slot: number, context: EngineContext, memory: SlotMemory) {
    this.slot = slot;
    this.context = context;
    this.limits = context.limits;
    this.stats = context.stats;
    this.head = new ParsedHead(this.limits.maxHeaderCount, memory.hotOffsets, memory.coldOffsets);
    this.input = new RequestInput(memory.head, context.stats, context.limits.maxUnreadInputBytes);
    this.output = new OutputChannel(memory.output, context.reserved);
    const { reserved, headerLineCache } = context;
    this.draft = new ResponseDraft(this.limits, this.stats, reserved, headerLineCache);
    this.stream = new StreamFraming(this);
    this.run = new HandlerRun(this);
    this.closer = new ConnectionEnding(this);
    this.admission = new RequestAdmission(this);
    this.upload = new StreamedBody(this.admission, context.limits);
    this.lease = new WorkerLease(slot, this.admission, context.scheduler);
    this.webSocket = new WebSocketSwitch(this, memory.head);
  }

  /** The request body, once read (a view of a socket chunk or of the worker's body storage). */
  get body(): Uint8Array {
    return this.input.body;
  }

  /** Attaches a newly accepted socket. */
  open(socket: EngineSocket): void {
    this.socket = socket;
    this.peer.forget();
    this.generation++;
    this.state = readingHead;
    this.ending = "stay";
    this.closer.pendingError = null;
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
    if (this.socket === null || this.output.pending || this.closer.pendingError !== null)
      return false;
    if (this.state === closing) return this.deadlineKind === "linger";
    return (
      this.state === readingHead &&
      !this.input.headStarted &&
      !this.input.pending &&
      this.ending === "stay"
    );
  }

  // ---- events -------------------------------------------------------------------------------

  /**
   * A chunk arrived; `owned` when it is the engine's to free once used (a socket chunk), false
   * for bytes an in-memory caller still owns.
   */
  onData(chunk: Uint8Array, owned: boolean): void {
    this.stats.bytesIn += chunk.length;
    this.bytesReceived += chunk.length;
    if (this.state === webSocketPhase) {
      this.webSocket.onData(chunk, owned);
      return;
    }
    if (this.state === closing || this.state === closed) {
      if (owned) releaseChunk(chunk);
      return;
    }
    this.input.receive(chunk, owned);
    if (this.upload.waiting) this.upload.supply();
    this.pump();
  }

  /** The socket can take more bytes. */
  onDrain(): void {
    if (this.state === webSocketPhase) {
      this.webSocket.onDrain();
      return;
    }
    if (this.socket !== null && this.output.pending) this.pump();
  }

  /** The client half-closed: nothing more will come. */
  onEnd(): void {
    if (this.socket !== null) this.closer.clientEnded();
  }

  /** The socket closed (by either side). */
  onClose(): void {
    const socket = this.socket;
    if (socket === null) return;
    // Events Bun may still deliver for this socket must not reach a later user of the slot.
    socket.data = -1;
    this.socket = null;
    const heldBySession = this.webSocket.connectionClosed();
    const reason = new ClientGoneError();
    this.abortExchange(reason);
    this.context.connectionBusy(this.slot);
    if (this.output.blocked) this.stats.blockedConnections--;
    this.lease.endRequest(this.run.running && this.exchange !== null, reason);
    this.exchange = null;
    this.run.running = false;
    this.closer.pendingError = null;
    this.upload.reset();
    this.input.discard();
    this.output.discard();
    this.stream.reset();
    this.deadlineAt = Number.POSITIVE_INFINITY;
    this.state = closed;
    this.generation++;
    // An abandoned handler keeps the slot with its worker until it settles (#handlerSettled); a
    // WebSocket message handler keeps it (the message lies in its memory) until it settles.
    this.context.connectionClosed(this.slot, this.lease.state !== "abandoned" && !heldBySession);
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
    if (this.state === webSocketPhase) {
      this.webSocket.goingAway();
      return;
    }
    // Others close after their current response, which carries `Connection: close`.
    if (this.socket !== null && this.state === readingHead && !this.input.headStarted) {
      if (!this.output.pending) this.close();
    }
  }

  /**
   * Half-closes, then reads and drops what the client still sends for a moment before closing:
   * closed at once with bytes unread, the connection would be reset, and the client lose what it
   * has not read yet (a WebSocket's close frame after a protocol error, RFC 6455 §7.1.7).
   */
  lingerClose(): void {
    this.ending = "linger";
    this.state = closing;
    this.closer.finish();
  }

  /** Aborts at once (RST): stalled writers, forced stops, a write that found the socket gone. */
  terminate(): void {
    const socket = this.socket;
    if (socket === null) return;
    this.state = closing;
    socket.terminate();
    if (this.socket !== null) this.onClose();
  }

  // ---- the driver ---------------------------------------------------------------------------

  /** Runs everything that can run now: an error answer, stream frames, input, output. */
  pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    this.turnBudget = requestsPerTurn;
    try {
      do {
        this.#pumpAgain = false;
        if (this.socket === null) break;
        this.closer.appendPending();
        if (!this.output.pending) this.stream.composePending();
        this.admission.consumeInput();
        if (this.output.pending) {
          if (!this.#writeOutput()) break;
        } else if (
          this.ending !== "stay" &&
          !this.#pumpAgain &&
          this.closer.pendingError === null &&
          (this.state === readingHead || this.state === closing)
        ) {
          this.closer.finish();
          break;
        }
      } while (this.#pumpAgain);
    } finally {
      this.#pumping = false;
    }
    this.adjustReading();
  }

  /**
   * Reads only what can be used: bytes that wait (a pipelined request behind a response, or
   * behind blocked output) pause the socket, so a connection holds at most one unconsumed chunk;
   * so does dropped input (reading what is only thrown away would cost the others time).
   */
  adjustReading(): void {
    if (this.socket === null) return;
    const state = this.state;
    if (this.input.pending || this.input.dropping || state === waitingWorker) {
      this.pauseReading();
      if (state === readingHead) this.closer.keepOrDropUnreadInput();
    } else if (state === readingHead || state === readingBody) {
      this.resumeReading();
      if (this.idle) this.context.connectionIdle(this.slot);
    } else if (this.upload.open) {
      // A streamed body is read only while the handler waits for it.
      if (this.upload.waiting) this.resumeReading();
      else this.pauseReading();
    }
  }

  /** Writes pending output; returns true when all of it went out. */
  #writeOutput(): boolean {
    const output = this.output;
    const wasBlocked = output.blocked;
    const progressAt = output.lastProgressAt;
    const result = output.writeTo(this.socket!, this.stats, this.context.now);
    if (result === outputClosed) {
      this.terminate();
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
    if (this.lease.state === "held" && this.state === readingHead && !this.run.running) {
      this.lease.release();
    }
    this.stream.outputDone();
    if (this.state === readingHead && !this.input.headStarted) {
      this.setDeadline("idle", this.limits.idleTimeoutMs);
    }
  }

  /** Starts the exchange of a request whose head is complete (request-admission.ts). */
  startExchange(): Exchange {
    const exchange = new Exchange(this, this.generation);
    this.exchange = exchange;
    return exchange;
  }

  // ---- errors, deadlines, teardown ------------------------------------------------------------

  /** Answers an engine error and closes the connection once it is written. */
  fail(name: EngineErrorName): void {
    this.closer.fail(name);
  }

  setDeadline(kind: DeadlineKind | "linger", afterMs: number): void {
    this.deadlineKind = kind;
    this.deadlineAt = this.context.deadlineBase + afterMs;
  }

  /** Called by the sweep: enforces the deadline of the current state and the write stall. */
  checkDeadlines(now: number): void {
    if (this.state === webSocketPhase) this.webSocket.session?.checkDeadlines(now);
    else if (this.socket !== null) enforceDeadline(this, now);
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
  endExchange(): void {
    if (this.exchange === null) return;
    this.exchange = null;
    this.generation++;
    this.run.running = false;
    this.stream.reset();
    this.upload.reset();
  }

  /** Pauses reading (also a WebSocket session's, while a message is handled). */
  pauseReading(): void {
    if (this.#paused || this.socket === null) return;
    this.#paused = true;
    this.socket.pause();
  }

  /** Resumes reading (also after an error answer, to read and drop what the client sends). */
  resumeReading(): void {
    if (!this.#paused || this.socket === null) return;
    this.#paused = false;
    this.socket.resume();
  }
}
