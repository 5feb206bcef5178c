import type { ArenaReservation } from "../internal/arena-reservation.ts";
import type { Limits } from "../limits.ts";
import type { StatsCounters } from "../stats.ts";
import { MessageBufferPool } from "./message-buffer-pool.ts";
import type { WebSocketContext } from "./websocket-host.ts";
import type { WebSocketSession } from "./websocket-session.ts";

/**
 * The engine-wide part of WebSockets: the reserved message buffers, the counters, and one
 * flush per turn of the event loop for every session that got sends from outside its own input
 * (a publish to 10,000 members queues a frame on each and writes each socket once, after every
 * socket event of the turn was handled).
 */
export class WebSocketEngine implements WebSocketContext {
  readonly counters;
  readonly pool: MessageBufferPool;
  readonly writeStallMs: number;
  readonly #stats: StatsCounters;
  readonly #clock: () => number;
  readonly #dirty: WebSocketSession[] = [];
  #flushQueued = false;
  readonly #flushAll = () => {
    this.#flushQueued = false;
    const dirty = this.#dirty;
    // Flushing may schedule more (a drain callback that sends): those run in the same pass.
    for (let index = 0; index < dirty.length; index++) dirty[index]!.flush();
    dirty.length = 0;
  };

  /** `arenas`: the engine's reservation, to take the message buffers from. */
  constructor(
    limits: Limits,
    stats: StatsCounters,
    clock: () => number,
    arenas?: ArenaReservation,
  ) {
    this.#stats = stats;
    this.#clock = clock;
    this.counters = stats.webSockets;
    this.writeStallMs = limits.writeStallMs;
    this.pool = new MessageBufferPool(
      limits.webSocketMessageBuffers,
      limits.maxWebSocketMessageBytes,
      stats.webSockets,
      clock,
      arenas,
    );
  }

  now(): number {
    return this.#clock();
  }

  countBytesOut(bytes: number): void {
    this.#stats.bytesOut += bytes;
  }

  scheduleFlush(session: WebSocketSession): void {
    this.#dirty.push(session);
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    // After every socket event of this turn of the event loop: a member that gets several
    // publishes in one turn (a busy room) gets them in one write.
    setImmediate(this.#flushAll);
  }
}
