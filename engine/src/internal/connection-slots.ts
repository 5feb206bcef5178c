import type { Limits } from "../limits.ts";
import type { ArenaReservation } from "./arena-reservation.ts";
import { Connection } from "./connection.ts";
import { SlotArenas } from "./connection-parts.ts";
import type { EngineContext } from "./engine-context.ts";
import type { WorkerLease } from "./worker-lease.ts";

/**
 * The engine's connection slots, all made with the engine: each slot's memory (its share of the
 * head, output and header-offset arenas) and its objects (the connection, parser state, lease
 * and the like: 28 objects, about 2.4 KiB of heap), reused by every socket that takes the slot.
 * Made at once, the objects sit together in the heap (about 2.7 KiB of resident memory a slot);
 * made when a slot was first taken, tried on 2026-11-26, they landed among the garbage of the
 * requests around them and cost 4-5 KiB a slot (12 KiB per idle WebSocket instead of 8).
 */
export class ConnectionSlots {
  /** Each slot's connection, by slot. */
  readonly bySlot: readonly Connection[];
  /** Each slot's worker lease, by slot: the scheduler's view of the same table. */
  readonly leases: readonly WorkerLease[];

  constructor(limits: Limits, context: EngineContext, arenas: ArenaReservation) {
    const memory = new SlotArenas(limits, arenas);
    const connections: Connection[] = [];
    for (let slot = 0; slot < limits.maxConnections; slot++) {
      connections.push(new Connection(slot, context, memory.memoryOf(slot)));
    }
    this.bySlot = connections;
    this.leases = connections.map((connection) => connection.lease);
  }

  /** Every slot's connection. */
  [Symbol.iterator](): IterableIterator<Connection> {
    return this.bySlot.values();
  }
}
