import { ArenaReservation } from "../internal/arena-reservation.ts";
import type { WebSocketCounters } from "./websocket-stats.ts";

/** A session's reader as the pool knows it: it waits for a buffer, then holds one. */
export interface MessageBufferWaiter {
  bufferGranted(buffer: Uint8Array): void;
  /**
   * The pool wants this holder's buffer back for a message that waits: true when it gave it
   * back (its message was still arriving: the connection is closed with 1013), false when it
   * cannot (its message is whole and being handled).
   */
  bufferReclaimed(): boolean;
}

/**
 * The engine's reserved message buffers (`webSocketMessageBuffers` x `maxWebSocketMessageBytes`):
 * a message that does not come whole in one socket chunk and outgrows its connection's own
 * small buffer is assembled in one of them. When all are taken the session waits in order
 * with its reads paused. While one waits, no socket holds a buffer longer than
 * `webSocketMessageBufferHoldMs` to receive its message (`reclaim`, from the engine's sweep).
 */
export class MessageBufferPool {
  readonly #free: Uint8Array[] = [];
  readonly #waiters: MessageBufferWaiter[] = [];
  readonly #stats: WebSocketCounters;
  readonly #holders: MessageBufferWaiter[] = [];
  readonly #heldSince: number[] = [];
  readonly #held: Uint8Array[] = [];
  readonly #clock: () => number;

  /** The room the pool takes in an engine's `ArenaReservation`. */
  static reservedBytes(count: number, bytes: number): number {
    return count === 0 ? 0 : ArenaReservation.span(count * bytes);
  }

  /**
   * `clock`: the engine's coarse milliseconds; `arenas`: the engine's reservation, to take the
   * buffers from (else the pool makes its own).
   */
  constructor(
    count: number,
    bytes: number,
    stats: WebSocketCounters,
    clock: () => number,
    arenas = new ArenaReservation(MessageBufferPool.reservedBytes(count, bytes)),
  ) {
    this.#stats = stats;
    this.#clock = clock;
    if (count === 0) return;
    const arena = arenas.take(count * bytes);
    for (let index = 0; index < count; index++) {
      this.#free.push(arena.subarray(index * bytes, (index + 1) * bytes));
    }
  }

  /** A free buffer for `holder`, or undefined: then call `wait`. */
  take(holder: MessageBufferWaiter): Uint8Array | undefined {
    if (this.#waiters.length > 0) return undefined;
    const buffer = this.#free.pop();
    if (buffer === undefined) return undefined;
    this.#stats.messageBuffersInUse++;
    this.#hold(buffer, holder);
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
    const index = this.#held.indexOf(buffer);
    if (index >= 0) {
      this.#held.splice(index, 1);
      this.#holders.splice(index, 1);
      this.#heldSince.splice(index, 1);
    }
    const waiter = this.#waiters.shift();
    this.#stats.waitingForMessageBuffer = this.#waiters.length;
    if (waiter !== undefined) {
      this.#hold(buffer, waiter);
      waiter.bufferGranted(buffer);
      return;
    }
    this.#stats.messageBuffersInUse--;
    this.#free.push(buffer);
  }

  /**
   * While messages wait for a buffer, takes buffers back from the holders that have held theirs
   * for `holdMs` or more, longest first, one for each waiting message.
   */
  reclaim(now: number, holdMs: number): void {
    let wanted = this.#waiters.length;
    // Holders in the order they took their buffers: the oldest first.
    for (let index = 0; wanted > 0 && index < this.#holders.length; ) {
      if (now - this.#heldSince[index]! < holdMs) break;
      const holder = this.#holders[index]!;
      const reclaimed = holder.bufferReclaimed();
      if (reclaimed) wanted--;
      // A holder that gave its buffer back left the lists (`give` put the waiter at their end).
      if (!reclaimed || this.#holders[index] === holder) index++;
    }
  }

  #hold(buffer: Uint8Array, holder: MessageBufferWaiter): void {
    this.#held.push(buffer);
    this.#holders.push(holder);
    this.#heldSince.push(this.#clock());
  }
}
