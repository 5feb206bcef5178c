import type { EngineSocket } from "./engine-socket.ts";

/**
 * The peer's address of one connection, read from the socket on first use and then kept until
 * the slot takes another socket. Not read at accept: each of Bun's `remoteAddress`,
 * `remoteFamily` and `remotePort` asks the kernel (about 8 µs for the three on a new socket,
 * measured on Bun 1.4.4), a cost every connection would pay for a value few handlers read.
 */
export class PeerAddress {
  #known = false;
  address: string | undefined = undefined;
  family: "IPv4" | "IPv6" | undefined = undefined;
  port: number | undefined = undefined;

  /** A new socket took the slot: its address is read when first asked for. */
  forget(): void {
    this.#known = false;
    this.address = undefined;
    this.family = undefined;
    this.port = undefined;
  }

  /** Reads the address of `socket` once per connection (an in-memory socket has none). */
  readFrom(socket: EngineSocket | null): this {
    if (this.#known || socket === null) return this;
    this.#known = true;
    this.address = socket.remoteAddress;
    this.family = socket.remoteFamily;
    this.port = socket.remotePort;
    return this;
  }
}
