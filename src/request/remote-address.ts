import type { Exchange } from "corral/engine";

/**
 * The peer of a request's connection, as the socket reports it. Behind a proxy this is the
 * proxy; read `Forwarded` or `X-Forwarded-For` only when you run that proxy.
 *
 * @example
 * const peer: RemoteAddress = { address: "127.0.0.1", family: "IPv4", port: 53124 };
 */
export interface RemoteAddress {
  /**
   * The IP address: `"127.0.0.1"`, `"::1"`, or `"::ffff:127.0.0.1"` for an IPv4 peer of a
   * dual-stack (`"::"`) listener, whose family is then `"IPv6"`.
   */
  readonly address: string;
  readonly family: "IPv4" | "IPv6";
  /** The peer's TCP port. */
  readonly port: number;
}

/** The exchange's peer, or undefined when it has none (an in-process request). */
export function remoteAddressOf(exchange: Exchange): RemoteAddress | undefined {
  const address = exchange.remoteAddress;
  const family = exchange.remoteFamily;
  const port = exchange.remotePort;
  if (address === undefined || family === undefined || port === undefined) return undefined;
  return { address, family, port };
}
