import type { WritableSocket } from "./output-channel.ts";

/** What a connection needs of its socket: Bun's TCP socket, or the in-memory one. */
export interface EngineSocket extends WritableSocket {
  /** The connection slot; -1 once the slot let go of the socket. */
  data: number;
  end(): void;
  terminate(): void;
  shutdown(): void;
  pause(): void;
  resume(): void;
  /** The peer, as Bun's TCP socket reports it; absent on the in-memory socket. */
  readonly remoteAddress?: string;
  readonly remoteFamily?: "IPv4" | "IPv6";
  readonly remotePort?: number;
}
