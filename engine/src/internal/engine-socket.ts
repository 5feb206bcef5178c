/** What a connection needs of its socket: Bun's TCP socket, or the in-memory one. */
export interface EngineSocket {
  /** The connection slot; -1 once the slot let go of the socket. */
  data: number;
  write(data: Uint8Array, byteOffset: number, byteLength: number): number;
  /**
   * The descriptor, for vectored writes: Bun's TCP sockets have it at run time (-1 once closed;
   * the 1.4.4 typings omit it), the in-memory socket has none.
   */
  readonly fd?: number;
  end(): void;
  terminate(): void;
  shutdown(): void;
  pause(): void;
  resume(): void;
}
