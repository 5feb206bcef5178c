import { asciiBytes } from "../internal/ascii.ts";
import { acceptKey, type HandshakeRequest, validateHandshake } from "./handshake.ts";
import type { WebSocketEngine } from "./websocket-engine.ts";
import type { WebSocketHandler, WebSocketTransport } from "./websocket-host.ts";
import { resolveWebSocketLimits, type WebSocketLimits } from "./websocket-options.ts";
import { WebSocketSession } from "./websocket-session.ts";

/** What `exchange.upgradeToWebSocket()` takes. */
export interface WebSocketUpgradeOptions {
  /** Called with each message, on drain, and once on close. */
  readonly handler: WebSocketHandler;
  /** The route's bounds and deadlines, merged over `defaultWebSocketLimits`. */
  readonly limits?: Partial<WebSocketLimits>;
  /** The subprotocol chosen from those the client offered; none when absent. */
  readonly protocol?: string;
}

const switchingHead = asciiBytes(
  "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ",
);
const lineEnd = asciiBytes("\r\n");

/**
 * An accepted upgrade between the handler's call and the 101: the session exists (the handler
 * may already send; frames queue behind the 101) and the connection switches when the handler
 * settles.
 */
export class PendingUpgrade {
  readonly session: WebSocketSession;
  readonly #accept: string;
  readonly #protocol: string;

  constructor(session: WebSocketSession, accept: string, protocol: string) {
    this.session = session;
    this.#accept = accept;
    this.#protocol = protocol;
  }

  /**
   * The 101 response head (RFC 6455 §4.2.2) with the application's header lines (cookies set by
   * middleware, for example). No `Sec-WebSocket-Extensions`: none is negotiated.
   */
  head(applicationLines: Uint8Array): Uint8Array {
    const protocolLine =
      this.#protocol === "" ? "" : `Sec-WebSocket-Protocol: ${this.#protocol}\r\n`;
    const tail = asciiBytes(`${this.#accept}\r\n${protocolLine}`);
    const head = new Uint8Array(
      switchingHead.length + tail.length + applicationLines.length + lineEnd.length,
    );
    head.set(switchingHead, 0);
    head.set(tail, switchingHead.length);
    head.set(applicationLines, switchingHead.length + tail.length);
    head.set(lineEnd, head.length - lineEnd.length);
    return head;
  }
}

/**
 * Checks the handshake and the options and makes the session. A request that is not a valid
 * handshake, a subprotocol the client did not offer, or limits out of range are a `TypeError` or
 * `RangeError`: the application answers 400/426/403 itself before it upgrades.
 */
export function prepareUpgrade(
  request: HandshakeRequest,
  options: WebSocketUpgradeOptions,
  engine: WebSocketEngine,
  transport: WebSocketTransport,
  storage: { readonly small: Uint8Array; readonly batch: Uint8Array },
  maxWebSocketMessageBytes: number,
): PendingUpgrade {
  const handshake = validateHandshake(request);
  if (handshake.kind === "refused") {
    throw new TypeError(`corral: not a WebSocket handshake (${handshake.reason})`);
  }
  if (
    typeof options.handler?.message !== "function" ||
    typeof options.handler.close !== "function"
  ) {
    throw new TypeError("corral: a WebSocket handler needs message() and close() functions");
  }
  const protocol = options.protocol ?? "";
  if (protocol !== "" && !handshake.protocols.includes(protocol)) {
    throw new TypeError(`corral: the client did not offer the subprotocol ${protocol}`);
  }
  const limits = resolveWebSocketLimits(options.limits ?? {}, maxWebSocketMessageBytes);
  const session = new WebSocketSession(
    transport,
    engine,
    options.handler,
    limits,
    protocol,
    storage,
  );
  return new PendingUpgrade(session, acceptKey(handshake.key), protocol);
}
