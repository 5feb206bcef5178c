import { callClose, callNotice, reportFailure } from "./application-calls.ts";
import { closeCodes } from "./close-codes.ts";
import type { EncodedMessage } from "./encoded-message.ts";
import {
  type FrameParser,
  opcodeBinary,
  opcodeClose,
  opcodePing,
  opcodeText,
} from "./frame-parser.ts";
import { type InboundHost, InboundReader } from "./inbound-reader.ts";
import { flushBlocked, flushClosed, flushDone, OutboundQueue } from "./outbound-queue.ts";
import { livenessIdle, livenessPing, livenessPongMissed, PeerLiveness } from "./peer-liveness.ts";
import { type SendResult, sendTypeError, validateCloseToSend } from "./send-rules.ts";
import type { WebSocketContext, WebSocketHandler, WebSocketTransport } from "./websocket-host.ts";
import type { WebSocketLimits } from "./websocket-options.ts";
import { failureCloseKind, type WebSocketCloseKind } from "./websocket-stats.ts";

const stateOpen = 0;
/** We sent (or queued) a close and wait for the peer's. */
const stateClosing = 1;
/** The close handshake is done, or failed: once our close is out, the TCP connection ends. */
const stateEnding = 2;
const stateClosed = 3;

const decoder = new TextDecoder();

/**
 * One WebSocket on a connection slot (RFC 6455 after the 101): reads frames with the pure
 * parser, assembles messages in reserved memory, hands each to the application with reads
 * paused until it is handled, answers pings, runs the closing handshake, enforces the route's
 * deadlines from the engine's sweep, and writes through a capped outbound queue.
 */
export class WebSocketSession {
  readonly #transport: WebSocketTransport;
  readonly #context: WebSocketContext;
  readonly #handler: WebSocketHandler;
  readonly #limits: WebSocketLimits;
  readonly #reader: InboundReader<WebSocketSession>;
  readonly #queue: OutboundQueue;
  /** The selected subprotocol, or "" when none. */
  readonly protocol: string;
  /** Free for the application: what its handler needs to find its own object for this socket. */
  data: unknown = undefined;
  #state = stateOpen;
  /** Reads stay paused until the 101 is out (`start`). */
  #paused = true;
  /** Whether the 101 went out (before it, the connection still speaks HTTP). */
  #started = false;
  #flushScheduled = false;
  #flushing = false;
  #flushAgain = false;
  #backpressured = false;
  readonly #liveness: PeerLiveness;
  #messageDeadlineAt = Number.POSITIVE_INFINITY;
  #closeDeadlineAt = Number.POSITIVE_INFINITY;
  #closeKind: WebSocketCloseKind | null = null;
  #peerCloseCode: number = closeCodes.abnormal;
  #reported = false;
  #peerCloseReason = "";
  readonly #bytesOut = { bytes: 0 };

  constructor(
    transport: WebSocketTransport,
    context: WebSocketContext,
    handler: WebSocketHandler,
    limits: WebSocketLimits,
    protocol: string,
    storage: { readonly small: Uint8Array; readonly batch: Uint8Array },
  ) {
    this.#transport = transport;
    this.#context = context;
    this.#handler = handler;
    this.#limits = limits;
    this.protocol = protocol;
    const inbound = WebSocketSession.#inbound;
    this.#reader = new InboundReader(inbound, this, limits, storage.small, context.pool);
    this.#queue = new OutboundQueue(storage.batch);
    this.#liveness = new PeerLiveness(context.now());
  }

  /**
   * The 101 left the output buffer: the session owns the connection from now on. `leftover`
   * holds frames the client sent right behind its handshake.
   */
  start(leftover: Uint8Array | null): void {
    const counters = this.#context.counters;
    counters.open++;
    counters.accepted++;
    this.#started = true;
    this.#queue.enableBatch();
    this.#liveness.heard(this.#context.now());
    if (!callNotice(this.#handler, this, "open", counters)) this.#closeFailed();
    if (this.#state === stateClosed) return;
    if (leftover !== null) this.onData(leftover, true);
    else {
      this.flush();
      this.#adjustReading();
    }
  }

  /** The upgrade did not happen (the handler failed): nothing is reported, nothing sent. */
  cancel(): void {
    this.#state = stateClosed;
    this.#reported = true;
  }

  /** Whether messages may still be sent (no close started by either side). */
  get open(): boolean {
    return this.#state === stateOpen;
  }

  /** Data bytes queued and not yet taken by the socket. */
  get bufferedBytes(): number {
    return this.#queue.bufferedBytes;
  }

  // ---- sending ------------------------------------------------------------------------------

  /**
   * Sends a text (string) or binary (bytes, copied) message: "queued" when the socket is
   * keeping up, "backpressured" when it is queued behind output the client has not read yet
   * (`drain` follows), "refused" when it would pass `maxOutboundBytes` (then the route's policy:
   * dropped and counted, or the socket is closed with 1008 or 1013), or after a close.
   */
  send(data: string | Uint8Array): SendResult {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) throw sendTypeError(data);
    if (this.#state !== stateOpen) return "refused";
    const queue = this.#queue;
    const worst = typeof data === "string" ? data.length * 3 + 10 : data.length + 10;
    if (!queue.fits(worst, this.#limits.maxOutboundBytes)) {
      const exact =
        typeof data === "string" ? Buffer.byteLength(data, "utf8") + 10 : data.length + 10;
      if (!queue.fits(exact, this.#limits.maxOutboundBytes)) return this.#refuse();
    }
    if (typeof data === "string") queue.pushText(opcodeText, data);
    else if (!this.#sendInPlace(data)) queue.pushBytes(opcodeBinary, data);
    return this.#queued();
  }

  /** The message being handled, sent back as it lies in the client's chunk (an echo). */
  #sendInPlace(data: Uint8Array): boolean {
    const chunk = this.#flushing ? null : this.#reader.chunkOfLent(data);
    if (chunk === null || !this.#queue.queueInPlace(opcodeBinary, chunk, data)) return false;
    this.flush();
    this.#queue.keepBorrowed();
    return true;
  }

  /** Sends a message encoded once for many (`EncodedMessage.of`); queued by reference. */
  sendEncoded(message: EncodedMessage): SendResult {
    if (this.#state !== stateOpen) return "refused";
    const frame = message.frame;
    if (!this.#queue.fits(frame.length, this.#limits.maxOutboundBytes)) return this.#refuse();
    this.#queue.pushFrame(frame);
    return this.#queued();
  }

  #queued(): SendResult {
    this.#context.counters.messagesOut++;
    this.#scheduleFlush();
    if (this.#queue.blocked) {
      this.#backpressured = true;
      return "backpressured";
    }
    return "queued";
  }

  #refuse(): SendResult {
    const counters = this.#context.counters;
    counters.sendsRefused++;
    const policy = this.#limits.outboundPolicy;
    if (policy === "drop") {
      counters.sendsDropped++;
      return "refused";
    }
    this.#startClose(
      policy === "close" ? closeCodes.policyViolation : closeCodes.tryAgainLater,
      "outbound queue full",
      "outboundOverflow",
    );
    return "refused";
  }

  /** Starts the closing handshake (RFC 6455 §7.1.2); queued data not yet sent is dropped. */
  close(code: number = closeCodes.normal, reason = ""): void {
    validateCloseToSend(code, reason);
    if (this.#state !== stateOpen) return;
    this.#startClose(code, reason, "normal");
  }

  /** Drops the connection at once, without a closing handshake (the close callback gets 1006). */
  terminate(): void {
    if (this.#state === stateClosed && this.#reported) return;
    this.#state = stateClosed;
    this.#transport.terminate();
  }

  // ---- events from the connection ---------------------------------------------------------

  /** Bytes from the socket; `owned` false when the caller keeps them (they are copied). */
  onData(chunk: Uint8Array, owned: boolean): void {
    if (this.#state === stateClosed) return;
    this.#liveness.heard(this.#context.now());
    this.#reader.receive(chunk, owned);
  }

  /** The socket can take more. */
  onDrain(): void {
    this.flush();
  }

  /**
   * The socket closed (either side): reports the close exactly once. True when a message
   * handler still runs: the message it was lent stays in the connection's memory, which must
   * not be reused until `transport.released` says the handler settled.
   */
  onClose(): boolean {
    if (this.#reported) return false;
    this.#reported = true;
    const kind = this.#closeKind ?? "abnormal";
    this.#state = stateClosed;
    // Gone before its 101 left: never opened, so no open count and no `close` (paired with open).
    if (!this.#started) return false;
    const counters = this.#context.counters;
    counters.open--;
    counters.closes[kind]++;
    const holding = this.#reader.clear();
    this.#queue.reset();
    callClose(this.#handler, this, this.#peerCloseCode, this.#peerCloseReason, counters);
    return holding;
  }

  /** Called by the engine's sweep: the route's deadlines and the write stall. */
  checkDeadlines(now: number): void {
    if (this.#state === stateClosed) return;
    const queue = this.#queue;
    if (queue.blocked && now - queue.lastProgressAt >= this.#context.writeStallMs) {
      this.#drop("writeStall");
      return;
    }
    if (now >= this.#closeDeadlineAt) {
      this.#drop("closeTimeout");
      return;
    }
    if (this.#state !== stateOpen) return;
    if (now >= this.#messageDeadlineAt) {
      this.#startClose(closeCodes.policyViolation, "message deadline passed", "messageDeadline");
      return;
    }
    const due = this.#liveness.check(now, this.#limits, this.#paused);
    if (due === livenessIdle) this.#startClose(closeCodes.goingAway, "idle timeout", "idle");
    else if (due === livenessPongMissed) this.#drop("pongTimeout");
    else if (due === livenessPing) {
      this.#context.counters.pingsSent++;
      queue.pushPing();
      this.flush();
    }
  }

  // ---- input (the reader's calls) ------------------------------------------------------------

  /** The reader's calls, one object for every session (see `InboundHost`). */
  static readonly #inbound: InboundHost<WebSocketSession> = {
    acceptsMessages: (session) => session.#state === stateOpen,
    message: (session, data, isText) => {
      session.#context.counters.messagesIn++;
      return session.#handler.message(session, data, isText);
    },
    released: (session) => session.#transport.released(),
    control: (session, parser) => session.#control(parser),
    protocolError: (session, code, reason) => session.#fail(code, reason),
    messageFailed: (session, error) => {
      reportFailure(session.#handler, session, "message", error, session.#context.counters);
      session.#closeFailed();
    },
    messageStarted: (session) => {
      session.#messageDeadlineAt = session.#context.now() + session.#limits.messageDeadlineMs;
    },
    messageAssembled: (session) => {
      session.#messageDeadlineAt = Number.POSITIVE_INFINITY;
    },
    inputDone: (session) => {
      // A flush asked for this turn (a publish) takes this pass's output too, in one write.
      if (!session.#flushScheduled) session.flush();
      session.#adjustReading();
    },
  };

  #control(parser: FrameParser): void {
    const opcode = parser.controlOpcode;
    if (opcode === opcodePing) {
      if (this.#state !== stateOpen) return;
      // Each ping gets its pong while the socket takes them; only a client that pings faster
      // than it reads has older pongs replaced (RFC 6455 §5.5.3), so a ping flood costs nothing.
      if (this.#queue.pongPending) this.flush();
      this.#queue.pushPong(parser.controlPayload());
      return;
    }
    if (opcode !== opcodeClose) return;
    this.#peerCloseCode = parser.closeCode;
    this.#peerCloseReason = decoder.decode(parser.closeReason());
    // RFC 6455 §5.5.1: answer with a close echoing the code, then end the TCP connection.
    if (this.#state === stateOpen) this.#queue.pushClose(parser.closeCode, "");
    this.#closeKind ??= "normal";
    this.#state = stateEnding;
    this.#reader.stop();
  }

  /** Fails the connection (RFC 6455 §7.1.7): our close frame, then the TCP connection ends. */
  #fail(code: number, reason: string): void {
    this.#closeKind ??= failureCloseKind(code);
    if (this.#state === stateOpen) this.#queue.pushClose(code, reason);
    this.#state = stateEnding;
    this.#reader.stop();
    this.#closeDeadlineAt = this.#context.now() + this.#limits.closeTimeoutMs;
  }

  #startClose(code: number, reason: string, kind: WebSocketCloseKind): void {
    if (this.#state !== stateOpen) return;
    this.#closeKind = kind === "normal" ? null : kind;
    // A client that does not read gets its close first: what it did not take is dropped.
    if (kind === "outboundOverflow") this.#queue.dropData();
    this.#queue.pushClose(code, reason);
    this.#state = stateClosing;
    this.#closeDeadlineAt = this.#context.now() + this.#limits.closeTimeoutMs;
    this.flush();
    if (kind === "outboundOverflow" && this.#queue.blocked) {
      // The client is not reading: it cannot read a close either, and waiting for one would
      // hold what the cap exists to free. Dropped now (Bun keeps such clients; issue #39255).
      this.terminate();
      return;
    }
    this.#adjustReading();
  }

  /** RFC 6455 §7.4.1: 1011, the server met a condition that kept it from going on. */
  #closeFailed(): void {
    this.#startClose(closeCodes.internalError, "", "handlerFailed");
  }

  #drop(kind: WebSocketCloseKind): void {
    this.#closeKind ??= kind;
    this.terminate();
  }

  #adjustReading(): void {
    const paused = this.#state !== stateClosed && this.#reader.busy;
    if (paused === this.#paused) return;
    this.#paused = paused;
    if (paused) this.#transport.pause();
    else this.#transport.resume();
  }

  // ---- output -------------------------------------------------------------------------------

  #scheduleFlush(): void {
    // Sends made while input is handled leave with the flush that ends the pass.
    if (this.#flushScheduled || this.#reader.processing) return;
    this.#flushScheduled = true;
    this.#context.scheduleFlush(this);
  }

  /** Writes what is queued; ends the TCP connection once a final close frame is out. */
  flush(): void {
    this.#flushScheduled = false;
    if (this.#state === stateClosed || !this.#started) return;
    // A write can run the peer's code at once (an in-memory client answering our close): a
    // flush it starts is done by the flush already under way, never inside it.
    if (this.#flushing) {
      this.#flushAgain = true;
      return;
    }
    const queue = this.#queue;
    const written = this.#bytesOut;
    let result: number;
    this.#flushing = true;
    try {
      do {
        this.#flushAgain = false;
        written.bytes = 0;
        result = queue.flush(this.#transport, this.#context.now(), written);
        if (written.bytes > 0) this.#context.countBytesOut(written.bytes);
      } while (this.#flushAgain && result === flushDone);
    } finally {
      this.#flushing = false;
    }
    if (this.#state === stateClosed || result === flushClosed || result === flushBlocked) return;
    if (this.#state === stateEnding && queue.closeSent) {
      // RFC 6455 §7.1.1: the server closes the TCP connection first.
      this.#state = stateClosed;
      this.#transport.end();
      return;
    }
    if (this.#backpressured) {
      this.#backpressured = false;
      if (!callNotice(this.#handler, this, "drain", this.#context.counters)) this.#closeFailed();
    }
  }
}
