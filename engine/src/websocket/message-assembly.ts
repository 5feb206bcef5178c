import type { MessageBufferPool, MessageBufferWaiter } from "./message-buffer-pool.ts";

/**
 * Where an inbound message is put together when it does not arrive whole in one socket chunk:
 * first the connection's own reserved buffer (its HTTP head buffer, unused once upgraded), then,
 * when the message outgrows it, one of the engine's reserved message buffers, copied over once.
 * Nothing here allocates.
 */
export class MessageAssembly {
  readonly #small: Uint8Array;
  readonly #pool: MessageBufferPool;
  #buffer: Uint8Array;
  #length = 0;
  #fromPool = false;
  #waiting: MessageBufferWaiter | null = null;
  /** The last view `copiedView` gave: the next message of the same length reuses it. */
  #copiedView: Uint8Array | null = null;

  constructor(small: Uint8Array, pool: MessageBufferPool) {
    this.#small = small;
    this.#pool = pool;
    this.#buffer = small;
  }

  /** Bytes gathered so far. */
  get length(): number {
    return this.#length;
  }

  /** Whether this assembly waits for a pool buffer. */
  get waiting(): boolean {
    return this.#waiting !== null;
  }

  /**
   * Appends `bytes[start, end)`; false when the message outgrew the small buffer and no pool
   * buffer is free: `waiter` is then queued and told when one is (call `append` again then).
   */
  append(bytes: Uint8Array, start: number, end: number, waiter: MessageBufferWaiter): boolean {
    const length = end - start;
    if (this.#length + length > this.#buffer.length) {
      const large = this.#pool.take(waiter);
      if (large === undefined) {
        this.#waiting = waiter;
        this.#pool.wait(waiter);
        return false;
      }
      this.#adopt(large);
    }
    this.#buffer.set(bytes.subarray(start, end), this.#length);
    this.#length += length;
    return true;
  }

  /** A pool buffer was granted to the waiter: the small buffer's bytes move into it. */
  granted(large: Uint8Array): void {
    this.#waiting = null;
    this.#adopt(large);
  }

  /**
   * A view of the first `length` bytes of the small buffer, where the frame parser unmasked a
   * small message that came whole in one chunk (its `copyTarget`): a view of a reserved buffer
   * costs far less to make than one of a fresh socket chunk (for which JavaScriptCore first
   * builds an ArrayBuffer, copying a chunk under 1,000 bytes). Valid until the next message.
   * Making a view is itself a native call (a fifth of an echo's JavaScript): messages of one
   * length share one, which promises no less, as the bytes under any view of the small buffer
   * are the next message's anyway.
   */
  copiedView(length: number): Uint8Array {
    const last = this.#copiedView;
    if (last !== null && last.length === length) return last;
    const view = this.#small.subarray(0, length);
    this.#copiedView = view;
    return view;
  }

  /** The whole message (valid until `clear`). */
  message(): Uint8Array {
    return this.#buffer.subarray(0, this.#length);
  }

  /** Starts over; a pool buffer goes back to the pool. */
  clear(): void {
    if (this.#waiting !== null) {
      this.#pool.leave(this.#waiting);
      this.#waiting = null;
    }
    if (this.#fromPool) this.#pool.give(this.#buffer);
    this.#buffer = this.#small;
    this.#fromPool = false;
    this.#length = 0;
  }

  #adopt(large: Uint8Array): void {
    large.set(this.#small.subarray(0, this.#length), 0);
    this.#buffer = large;
    this.#fromPool = true;
  }
}
