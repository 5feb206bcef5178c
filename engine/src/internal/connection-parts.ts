import type { Limits } from "../limits.ts";
import type { ParsedHead } from "../parser/parsed-head.ts";
import type { StatsCounters } from "../stats.ts";
import { ArenaReservation } from "./arena-reservation.ts";
import type { EngineContext } from "./engine-context.ts";
import type { EngineSocket } from "./engine-socket.ts";
import type { OutputChannel } from "./output-channel.ts";
import type { RequestInput } from "./request-input.ts";
import type { WorkerLease } from "./worker-lease.ts";

/**
 * What every part of a connection (request-admission.ts, handler-run.ts, connection-ending.ts)
 * reads of it: the server's state, the slot's socket and its input, output and lease. Each part's
 * host interface adds what that part changes.
 */
export interface ConnectionParts {
  readonly slot: number;
  readonly context: EngineContext;
  readonly limits: Limits;
  readonly stats: StatsCounters;
  readonly socket: EngineSocket | null;
  readonly head: ParsedHead;
  readonly input: RequestInput;
  readonly output: OutputChannel;
  readonly lease: WorkerLease;
}

/** A slot's share of the arenas `listen()` reserves, handed to its connection once. */
export interface SlotMemory {
  /** The head buffer: a request head too large for one chunk is gathered here. */
  readonly head: Uint8Array;
  /** The output buffer: response heads and small bodies, one write per turn. */
  readonly output: Uint8Array;
  /** Four offsets per header field of the parsed head (`maxHeaderCount` fields). */
  readonly headerOffsets: Uint32Array;
}

/** Each slot's head buffer, output buffer and header offsets, for every connection slot. */
function slotArenaSizes(limits: Limits): [number, number, number] {
  return [
    limits.maxConnections * limits.maxHeaderBytes,
    limits.maxConnections * limits.connectionOutputBytes,
    limits.maxConnections * limits.maxHeaderCount * 4 * 4,
  ];
}

/** The room the connection slots take in an engine's `ArenaReservation`. */
export function slotReservedBytes(limits: Limits): number {
  return slotArenaSizes(limits).reduce((total, bytes) => total + ArenaReservation.span(bytes), 0);
}

/**
 * Every slot's memory, carved out of three arenas reserved at once. The header offsets too come
 * from one arena, not a small array per connection: the pages of connections that never parse a
 * head stay untouched (1.5 MiB less resident set at start with the defaults). A slot's views are
 * made when its connection is (see connection-slots.ts).
 */
export class SlotArenas {
  readonly #head: Uint8Array;
  readonly #output: Uint8Array;
  readonly #headerOffsets: Uint32Array;
  readonly #headBytes: number;
  readonly #outputBytes: number;
  readonly #offsetsPerSlot: number;

  constructor(limits: Limits, arenas: ArenaReservation) {
    const [headBytes, outputBytes] = slotArenaSizes(limits);
    this.#head = arenas.take(headBytes);
    this.#output = arenas.take(outputBytes);
    this.#offsetsPerSlot = limits.maxHeaderCount * 4;
    this.#headerOffsets = arenas.takeWords(limits.maxConnections * this.#offsetsPerSlot);
    this.#headBytes = limits.maxHeaderBytes;
    this.#outputBytes = limits.connectionOutputBytes;
  }

  /** The share of `slot` (views of the arenas, made on each call). */
  memoryOf(slot: number): SlotMemory {
    const head = this.#headBytes;
    const output = this.#outputBytes;
    const offsets = this.#offsetsPerSlot;
    return {
      head: this.#head.subarray(slot * head, (slot + 1) * head),
      output: this.#output.subarray(slot * output, (slot + 1) * output),
      headerOffsets: this.#headerOffsets.subarray(slot * offsets, (slot + 1) * offsets),
    };
  }
}
