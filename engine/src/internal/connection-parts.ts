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
  /** Four offsets per header field of the parsed head, for its first `hotHeaderFields` fields. */
  readonly hotOffsets: Uint32Array;
  /** The same for the fields after those, up to `maxHeaderCount`. */
  readonly coldOffsets: Uint32Array;
}

/**
 * Header fields whose offsets every slot keeps in the hot arena: a browser's request has 10 to
 * 20, a WebSocket handshake about 8. 32 fields take 512 bytes a slot, 8 slots to a page.
 */
export const hotHeaderFields = 32;

/** Each slot's share in bytes: head buffer, output buffer, hot and cold header offsets. */
function slotShares(limits: Limits): [number, number, number, number] {
  const hotFields = Math.min(hotHeaderFields, limits.maxHeaderCount);
  return [
    limits.maxHeaderBytes,
    limits.connectionOutputBytes,
    hotFields * 16,
    (limits.maxHeaderCount - hotFields) * 16,
  ];
}

/** The room the connection slots take in an engine's `ArenaReservation`. */
export function slotReservedBytes(limits: Limits): number {
  return ArenaReservation.spanOfAll(
    slotShares(limits).map((share) => share * limits.maxConnections),
  );
}

/**
 * Every slot's memory, carved out of four arenas reserved at once. The header offsets too come
 * from arenas, not a small array per connection: the pages of connections that never parse a
 * head stay untouched (1.5 MiB less resident set at start with the defaults), and the first
 * fields of all slots sit together, apart from the rest (see `ParsedHead`).
 */
export class SlotArenas {
  readonly #head: Uint8Array;
  readonly #output: Uint8Array;
  readonly #hotOffsets: Uint32Array;
  readonly #coldOffsets: Uint32Array;
  readonly #shares: [number, number, number, number];

  constructor(limits: Limits, arenas: ArenaReservation) {
    const shares = slotShares(limits);
    const slots = limits.maxConnections;
    this.#head = arenas.take(shares[0] * slots);
    this.#output = arenas.take(shares[1] * slots);
    this.#hotOffsets = arenas.takeWords((shares[2] * slots) / 4);
    this.#coldOffsets = arenas.takeWords((shares[3] * slots) / 4);
    this.#shares = shares;
  }

  /** The share of `slot` (views of the arenas, made on each call). */
  memoryOf(slot: number): SlotMemory {
    const [head, output, hotBytes, coldBytes] = this.#shares;
    const hot = hotBytes / 4;
    const cold = coldBytes / 4;
    return {
      head: this.#head.subarray(slot * head, (slot + 1) * head),
      output: this.#output.subarray(slot * output, (slot + 1) * output),
      hotOffsets: this.#hotOffsets.subarray(slot * hot, (slot + 1) * hot),
      coldOffsets: this.#coldOffsets.subarray(slot * cold, (slot + 1) * cold),
    };
  }
}
