import { ArenaReservation } from "../internal/arena-reservation.ts";
import type { WebSocketCounters } from "./websocket-stats.ts";

/** A session waiting for a message buffer; granted one in the order it asked. */
export interface MessageBufferWaiter {
  bufferGranted(buffer: Uint8Array): void;
}

/**
 * The engine's reserved message buffers (`webSocketMessageBuffers` x `maxWebSocketMessageBytes`):
 * a message that does not come whole in one socket chunk and outgrows its connection's own
 * small buffer is assembled in one of them. When all are taken the session waits in order
 * with its reads paused; the message deadline bounds how long any one holds a buffer.
 */
export class MessageBufferPool {
  readonly #free: Uint8Array[] = [];
  readonly #waiters: MessageBufferWaiter[] = [];
  readonly #stats: WebSocketCounters;

  /** The room the pool takes in an engine's `ArenaReservation`. */
  static reservedBytes(count: number, bytes: number): number {
    return count === 0 ? 0 : ArenaReservation.span(count * bytes);
  }

  /** `arenas`: the engine's reservation, to take the buffers from (else the pool makes its own). */
  constructor(
    count: number,
    bytes: number,
    stats: WebSocketCounters,
    arenas = new ArenaReservation(MessageBufferPool.reservedBytes(count, bytes)),
  ) {
    this.#stats = stats;
    if (count === 0) return;
    const arena = arenas.take(count * bytes);
    for (let index = 0; index < count; index++) {
      this.#free.push(arena.subarray(index * bytes, (index + 1) * bytes));
    }
  }

  /** A free buffer, or undefined: then call `wait`. */
  take(): Uint8Array | undefined {
    if (this.#waiters.length > 0) return undefined;
    const buffer = this.#free.pop();
    if (buffer !== undefined) this.#stats.messageBuffersInUse++;
    return buffer;
  }

  /** Queues `waiter` for the next buffer given back. */
  wait(waiter: MessageBufferWaiter): void {
    this.#waiters.push(waiter);
    this.#stats.waitingForMessageBuffer = this.#waiters.length;
  }

  /** Removes a waiter that no longer wants a buffer (its connection closed). */
  leave(waiter: MessageBufferWaiter): void {
    const index = this.#waiters.indexOf(waiter);
    if (index >= 0) this.#waiters.splice(index, 1);
    this.#stats.waitingForMessageBuffer = this.#waiters.length;
  }

  /** Gives a buffer back: to the first waiter, or to the free list. */
  give(buffer: Uint8Array): void {
    const waiter = this.#waiters.shift();
    this.#stats.waitingForMessageBuffer = this.#waiters.length;
    if (waiter !== undefined) {
      waiter.bufferGranted(buffer);
      return;
    }
    this.#stats.messageBuffersInUse--;
    this.#free.push(buffer);
  }
}
