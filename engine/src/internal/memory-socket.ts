import type { EngineSocket } from "./engine-socket.ts";

/**
 * An in-memory socket: what the engine writes goes to `onData` as a copy, and it takes every
 * byte at once (the receiver is the caller's own code, so there is no slow reader to bound).
 */
export class MemorySocket implements EngineSocket {
  data = -1;
  paused = false;
  closed = false;
  readonly #onData: (bytes: Uint8Array) => void;
  readonly #onClose: () => void;

  constructor(onData: (bytes: Uint8Array) => void, onClose: () => void) {
    this.#onData = onData;
    this.#onClose = onClose;
  }

  write(data: Uint8Array, byteOffset: number, byteLength: number): number {
    if (this.closed) return -1;
    this.#onData(data.slice(byteOffset, byteOffset + byteLength));
    return byteLength;
  }

  end(): void {
    this.#close();
  }

  terminate(): void {
    this.#close();
  }

  /** The engine's half-close: the in-memory client has nothing more to send, so it ends too. */
  shutdown(): void {
    queueMicrotask(() => this.onPeerEnd?.());
  }

  /** Set by the engine: tells the connection the peer ended after a half-close. */
  onPeerEnd: (() => void) | null = null;

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  #close(): void {
    if (this.closed) return;
    this.closed = true;
    this.#onClose();
  }
}
