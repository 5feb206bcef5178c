import type { Exchange } from "../exchange.ts";
import type { Limits } from "../limits.ts";
import type { StatsCounters } from "../stats.ts";
import { closeCodes } from "../websocket/close-codes.ts";
import type { WebSocketTransport } from "../websocket/websocket-host.ts";
import type { WebSocketSession } from "../websocket/websocket-session.ts";
import {
  type PendingUpgrade,
  prepareUpgrade,
  type WebSocketUpgradeOptions,
} from "../websocket/websocket-upgrade.ts";
import type { ConnectionPhase } from "./connection-phase.ts";
import { webSocketPhase } from "./connection-phase.ts";
import type { EngineContext } from "./engine-context.ts";
import type { EngineSocket } from "./engine-socket.ts";
import type { OutputChannel } from "./output-channel.ts";
import { outputBlocked, outputClosed } from "./output-channel.ts";
import type { RequestInput } from "./request-input.ts";
import type { ResponseDraft } from "./response-draft.ts";
import { upgradeWeight } from "./young-collection.ts";

/** What the protocol switch reads and calls on its connection. */
export interface SwitchHost {
  readonly slot: number;
  readonly context: EngineContext;
  readonly limits: Limits;
  readonly stats: StatsCounters;
  readonly socket: EngineSocket | null;
  readonly input: RequestInput;
  readonly output: OutputChannel;
  readonly draft: ResponseDraft;
  readonly exchange: Exchange | null;
  state: ConnectionPhase;
  deadlineAt: number;
  /** Ends the request as published (the worker goes back) so the slot is free for the switch. */
  readonly run: { requestDone(): void };
  terminate(): void;
  lingerClose(): void;
  pauseReading(): void;
  resumeReading(): void;
}

/**
 * A connection's way from HTTP to WebSocket (RFC 6455 §4.2.2): the upgrade the handler accepts,
 * the 101 written when the handler settles (the worker given back then), and from there the
 * session in the same slot, which this object feeds with the connection's socket events. It is
 * also the session's transport: writes go to the socket, closes through the connection so the
 * slot is freed as for any close.
 */
export class WebSocketSwitch implements WebSocketTransport {
  readonly #host: SwitchHost;
  /** The connection's head buffer: a WebSocket's small message buffer once upgraded. */
  readonly #headBuffer: Uint8Array;
  #upgrade: PendingUpgrade | null = null;
  /** Frames that came behind the handshake, kept until the 101 is written. */
  #leftover: Uint8Array | null = null;
  /** The 101 is not all written yet: the session starts once it is. */
  #starting = false;
  session: WebSocketSession | null = null;

  constructor(host: SwitchHost, headBuffer: Uint8Array) {
    this.#host = host;
    this.#headBuffer = headBuffer;
  }

  /** Whether the handler accepted an upgrade that has not happened yet. */
  get pending(): boolean {
    return this.#upgrade !== null;
  }

  /** Accepts the exchange's upgrade (`exchange.upgradeToWebSocket`). */
  accept(options: WebSocketUpgradeOptions): WebSocketSession {
    const host = this.#host;
    if (this.#upgrade !== null) throw new TypeError("corral: this request is upgraded already");
    this.#upgrade = prepareUpgrade(
      host.exchange!,
      options,
      host.context.webSockets,
      this,
      { small: this.#headBuffer, batch: host.output.buffer },
      host.limits.maxWebSocketMessageBytes,
    );
    return this.#upgrade.session;
  }

  /**
   * The handler settled with an upgrade accepted: switches when it succeeded with nothing else
   * sent (returns true), or forgets the upgrade (returns false: the answer goes out as usual).
   */
  settle(failed: boolean, streamStarted: boolean, detached: boolean): boolean {
    const upgrade = this.#upgrade!;
    this.#upgrade = null;
    if (failed || streamStarted || detached) {
      upgrade.session.cancel();
      return false;
    }
    const host = this.#host;
    const draft = host.draft;
    const lines = draft.worker?.headerLines.subarray(0, draft.headerLength);
    const head = upgrade.head(lines ?? new Uint8Array(0));
    const output = host.output;
    // Written at once when nothing is ahead of it, so an idle socket never touches its slot's
    // output buffer; else (or for what the socket did not take) it goes behind the output, which
    // had room for a whole response head at dispatch.
    const took = output.pending ? 0 : Math.max(0, host.socket!.write(head, 0, head.length));
    host.stats.bytesOut += took;
    if (took < head.length) output.append(took === 0 ? head : head.subarray(took));
    host.stats.countResponse(101);
    host.context.youngCollection.count(upgradeWeight);
    this.#leftover = host.input.takeRemaining();
    host.run.requestDone();
    host.state = webSocketPhase;
    host.deadlineAt = Number.POSITIVE_INFINITY;
    host.context.connectionBusy(host.slot);
    this.session = upgrade.session;
    this.#starting = true;
    this.onDrain();
    return true;
  }

  onData(chunk: Uint8Array, owned: boolean): void {
    this.session!.onData(chunk, owned);
  }

  /** Writes what is left of the 101, then starts the session; later, tells it of drains. */
  onDrain(): void {
    const host = this.#host;
    if (!this.#starting) {
      this.session!.onDrain();
      return;
    }
    const output = host.output;
    if (output.pending) {
      const result = output.writeTo(host.socket!, host.stats, host.context.now);
      if (result === outputClosed) {
        host.terminate();
        return;
      }
      if (result === outputBlocked) return;
    }
    this.#starting = false;
    const leftover = this.#leftover;
    this.#leftover = null;
    host.resumeReading();
    this.session!.start(leftover);
  }

  /** On stop: the WebSocket closes with 1001. */
  goingAway(): void {
    this.session?.close(closeCodes.goingAway, "server stopping");
  }

  /**
   * The connection closed: the session (or an upgrade not yet done) hears it once. True when
   * the slot stays taken until a message handler settles (`released`).
   */
  connectionClosed(): boolean {
    this.#upgrade?.session.cancel();
    this.#upgrade = null;
    this.#leftover = null;
    this.#starting = false;
    const session = this.session;
    if (session === null) return false;
    this.session = null;
    return session.onClose();
  }

  // ---- the session's transport ------------------------------------------------------------

  write(bytes: Uint8Array, offset: number, length: number): number {
    const socket = this.#host.socket;
    return socket === null ? -1 : socket.write(bytes, offset, length);
  }

  pause(): void {
    this.#host.pauseReading();
  }

  resume(): void {
    this.#host.resumeReading();
  }

  /**
   * Our close frame is out: the TCP connection ends, lingering. The client may have sent more
   * (frames after one that broke the protocol, or after its close); closed at once with those
   * unread, the connection would be reset and the client lose our close frame.
   */
  end(): void {
    this.#host.lingerClose();
  }

  terminate(): void {
    this.#host.terminate();
  }

  released(): void {
    this.#host.context.slotFreed(this.#host.slot);
  }
}
