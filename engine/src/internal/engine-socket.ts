/** What a connection needs of its socket: Bun's TCP socket, or the in-memory one. */
export interface EngineSocket {
  /** The connection slot; -1 once the slot let go of the socket. */
  data: number;
  write(data: Uint8Array, byteOffset: number, byteLength: number): number;
  end(): void;
  terminate(): void;
  shutdown(): void;
  pause(): void;
  resume(): void;
}
