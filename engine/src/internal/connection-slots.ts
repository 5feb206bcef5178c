import type { Limits } from "../limits.ts";
import type { ArenaReservation } from "./arena-reservation.ts";
import { Connection } from "./connection.ts";
import { SlotArenas } from "./connection-parts.ts";
import type { EngineContext } from "./engine-context.ts";
import type { WorkerLease } from "./worker-lease.ts";

/**
 * The engine's connection slots. Their memory (head and output buffers, header offsets) is
 * reserved with the engine; a slot's objects (its connection, parser state, lease, ...: 26
 * objects, about 2.3 KiB of heap) are made the first time a socket takes the slot and reused by
 * every later one. Made for all slots at start, the default 1,024 slots held about 5.5 MiB of
 * resident memory that a server with a few dozen clients never used. The free list hands out
 * the most recently freed slot first, so only as many slots are ever made as were open at once.
 */
export class ConnectionSlots {
  /** Each made slot's connection, by slot (undefined until the slot's first socket). */
  readonly bySlot: (Connection | undefined)[] = [];
  /** Each made slot's worker lease, by slot: the scheduler's view of the same table. */
  readonly leases: (WorkerLease | undefined)[] = [];
  /** The connections made so far, in the order they were made. */
  readonly #made: Connection[] = [];
  readonly #arenas: SlotArenas;
  readonly #context: EngineContext;

  constructor(limits: Limits, context: EngineContext, arenas: ArenaReservation) {
    this.#arenas = new SlotArenas(limits, arenas);
    this.#context = context;
    // Filled with undefined rather than made with `new Array(length)`: a long array with holes
    // would be kept in JavaScriptCore's slower sparse form, and these are read on every event.
    for (let slot = 0; slot < limits.maxConnections; slot++) {
      this.bySlot.push(undefined);
      this.leases.push(undefined);
    }
  }

  /** How many slots have their objects made. */
  get made(): number {
    return this.#made.length;
  }

  /** The connection of `slot`, made now if the slot was never used. */
  take(slot: number): Connection {
    const existing = this.bySlot[slot];
    if (existing !== undefined) return existing;
    const connection = new Connection(slot, this.#context, this.#arenas.memoryOf(slot));
    this.bySlot[slot] = connection;
    this.leases[slot] = connection.lease;
    this.#made.push(connection);
    return connection;
  }

  /** Every connection made so far (a slot never used has none to visit). */
  [Symbol.iterator](): IterableIterator<Connection> {
    return this.#made.values();
  }
}
