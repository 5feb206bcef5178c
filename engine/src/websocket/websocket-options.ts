import type { FrameLimits } from "./frame-parser.ts";

/** What happens to a send that would take a member's outbound queue past `maxOutboundBytes`. */
export type OutboundPolicy =
  /** Close with 1008 (policy violation): the client is too slow for this route. */
  | "close"
  /** Close with 1013 (try again later): the server is busy, the client may reconnect. */
  | "closeTryAgain"
  /** Drop the message and count it (`stats().webSockets.sendsDropped`); the socket stays. */
  | "drop";

/** The bounds and deadlines of one WebSocket route. Units are in the names. */
export interface WebSocketLimits extends FrameLimits {
  /** Bytes queued for one client and not yet taken by its socket; past it, `outboundPolicy`. */
  readonly maxOutboundBytes: number;
  readonly outboundPolicy: OutboundPolicy;
  /** Time the peer may send nothing at all (pongs count); then close 1001. 0: never. */
  readonly idleTimeoutMs: number;
  /** Quiet time after which the server pings; 0: never. */
  readonly pingIntervalMs: number;
  /** Time a ping may go unanswered; then the connection is dropped (no close frame). */
  readonly pongTimeoutMs: number;
  /** Time from a message's first byte to its last; over it: close 1008. */
  readonly messageDeadlineMs: number;
  /** Time the peer has to answer our close frame; then the connection is dropped. */
  readonly closeTimeoutMs: number;
}

const kibibyte = 1024;

/**
 * The documented default of every WebSocket limit.
 *
 * @example
 * app.ws("/feed", { limits: { ...defaultWebSocketLimits, maxMessageBytes: 4096 }, message() {} });
 */
export const defaultWebSocketLimits: WebSocketLimits = Object.freeze({
  maxMessageBytes: 64 * kibibyte,
  maxFrameBytes: 64 * kibibyte,
  maxFragments: 64,
  maxOutboundBytes: 256 * kibibyte,
  outboundPolicy: "close",
  idleTimeoutMs: 120_000,
  pingIntervalMs: 30_000,
  pongTimeoutMs: 10_000,
  messageDeadlineMs: 30_000,
  closeTimeoutMs: 5_000,
});

const minimums: { readonly [K in Exclude<keyof WebSocketLimits, "outboundPolicy">]: number } = {
  maxMessageBytes: 0,
  maxFrameBytes: 0,
  maxFragments: 1,
  maxOutboundBytes: 1024,
  idleTimeoutMs: 0,
  pingIntervalMs: 0,
  pongTimeoutMs: 1,
  messageDeadlineMs: 1,
  closeTimeoutMs: 1,
};

/**
 * Merges `overrides` over `defaultWebSocketLimits` and checks them against the engine's
 * `maxWebSocketMessageBytes` (the size of each reserved message buffer); a `RangeError` or
 * `TypeError` names the first wrong value.
 */
export function resolveWebSocketLimits(
  overrides: Partial<WebSocketLimits>,
  maxWebSocketMessageBytes: number,
): WebSocketLimits {
  const limits: WebSocketLimits = { ...defaultWebSocketLimits, ...overrides };
  for (const name of Object.keys(limits) as (keyof WebSocketLimits)[]) {
    if (name === "outboundPolicy") continue;
    if (!(name in minimums)) throw new RangeError(`corral: unknown WebSocket limit "${name}"`);
    const value = limits[name];
    const minimum = minimums[name];
    if (!Number.isSafeInteger(value) || value < minimum) {
      throw new RangeError(
        `corral: WebSocket limit ${name} must be a whole number >= ${minimum}, got ${String(value)}`,
      );
    }
  }
  const policy = limits.outboundPolicy;
  if (policy !== "close" && policy !== "closeTryAgain" && policy !== "drop") {
    throw new TypeError(
      `corral: outboundPolicy must be "close", "closeTryAgain" or "drop", got ${String(policy)}`,
    );
  }
  if (limits.maxMessageBytes > maxWebSocketMessageBytes) {
    throw new RangeError(
      `corral: WebSocket limit maxMessageBytes (${limits.maxMessageBytes}) must not exceed the engine limit maxWebSocketMessageBytes (${maxWebSocketMessageBytes})`,
    );
  }
  if (limits.maxFrameBytes > limits.maxMessageBytes) {
    throw new RangeError("corral: WebSocket limit maxFrameBytes must not exceed maxMessageBytes");
  }
  return Object.freeze(limits);
}
