import type { Limits } from "../limits.ts";
import type { ParsedHead } from "../parser/parsed-head.ts";
import type { StatsCounters } from "../stats.ts";
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
