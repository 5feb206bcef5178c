import { closeCodes } from "./close-codes.ts";

/** Why a WebSocket ended, as counted in `stats().webSockets.closes`. */
export type WebSocketCloseKind =
  /** The closing handshake completed (either side started it). */
  | "normal"
  /** The peer broke the protocol: 1002. */
  | "protocolError"
  /** A text message or close reason was not UTF-8: 1007. */
  | "invalidPayload"
  /** A message, frame or fragment count over its limit: 1009. */
  | "messageTooBig"
  /** A send over the outbound cap under a closing policy: 1008 or 1013. */
  | "outboundOverflow"
  /** Nothing came from the peer for `idleTimeoutMs`. */
  | "idle"
  /** A ping went unanswered for `pongTimeoutMs`. */
  | "pongTimeout"
  /** A message took longer than `messageDeadlineMs` from its first byte to its last. */
  | "messageDeadline"
  /** The peer did not answer our close within `closeTimeoutMs`. */
  | "closeTimeout"
  /** The peer stopped reading and our output made no progress for `writeStallMs`. */
  | "writeStall"
  /**
   * The message buffer this socket held for `webSocketMessageBufferHoldMs` went to a message
   * that waited for one: 1013.
   */
  | "bufferReclaimed"
  /** One of the application's callbacks threw (or a message's promise rejected): 1011. */
  | "handlerFailed"
  /** The TCP connection ended without a closing handshake. */
  | "abnormal";

/** The kind a failure of the connection counts as, by the close code it sends (RFC 6455 §7.1.7). */
export function failureCloseKind(code: number): WebSocketCloseKind {
  if (code === closeCodes.invalidPayload) return "invalidPayload";
  if (code === closeCodes.tryAgainLater) return "bufferReclaimed";
  return code === closeCodes.messageTooBig ? "messageTooBig" : "protocolError";
}

/** WebSocket counters, exact, as part of `server.stats()`. */
export interface WebSocketStats {
  /** WebSockets open now. */
  readonly open: number;
  /** Upgrades answered with 101 since start. */
  readonly accepted: number;
  /** Messages received whole and handed to the application. */
  readonly messagesIn: number;
  /** Messages queued for sending (a publish counts once per member). */
  readonly messagesOut: number;
  /** Sends refused because the member's outbound queue was at its cap. */
  readonly sendsRefused: number;
  /** Of those, sends dropped and counted (the route's policy is "drop"). */
  readonly sendsDropped: number;
  /** Pings the server sent to check a quiet peer. */
  readonly pingsSent: number;
  /** Messages waiting now for a message buffer (reads paused meanwhile). */
  readonly waitingForMessageBuffer: number;
  /** Message buffers in use now. */
  readonly messageBuffersInUse: number;
  /** The application's callbacks that threw or rejected (see `WebSocketHandler.failed`). */
  readonly callbackFailures: number;
  /** WebSockets ended, by why. */
  readonly closes: { readonly [K in WebSocketCloseKind]: number };
}

/** The mutable counters behind `WebSocketStats`. */
export class WebSocketCounters {
  open = 0;
  accepted = 0;
  messagesIn = 0;
  messagesOut = 0;
  sendsRefused = 0;
  sendsDropped = 0;
  pingsSent = 0;
  waitingForMessageBuffer = 0;
  messageBuffersInUse = 0;
  callbackFailures = 0;
  readonly closes: Record<WebSocketCloseKind, number> = {
    normal: 0,
    protocolError: 0,
    invalidPayload: 0,
    messageTooBig: 0,
    outboundOverflow: 0,
    idle: 0,
    pongTimeout: 0,
    messageDeadline: 0,
    closeTimeout: 0,
    writeStall: 0,
    bufferReclaimed: 0,
    handlerFailed: 0,
    abnormal: 0,
  };

  snapshot(): WebSocketStats {
    return {
      open: this.open,
      accepted: this.accepted,
      messagesIn: this.messagesIn,
      messagesOut: this.messagesOut,
      sendsRefused: this.sendsRefused,
      sendsDropped: this.sendsDropped,
      pingsSent: this.pingsSent,
      waitingForMessageBuffer: this.waitingForMessageBuffer,
      messageBuffersInUse: this.messageBuffersInUse,
      callbackFailures: this.callbackFailures,
      closes: { ...this.closes },
    };
  }
}
