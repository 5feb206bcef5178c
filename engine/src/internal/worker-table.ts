import type { Limits } from "../limits.ts";
import { ArenaReservation } from "./arena-reservation.ts";
import { FreeList } from "./free-list.ts";
import { type CachedDateHeader, cachedDateHeaderBytes } from "./http-date.ts";
import { KnownHeaderLines } from "./known-header-lines.ts";
import { copyReserved } from "./reserved-copy.ts";

/** Room before staged stream data for a chunk-size line, and after it for CRLF and the last chunk. */
export const streamFramePrefixBytes = 16;
export const streamFrameSuffixBytes = 8;

/** One application worker: the memory a handler's response and request body live in. */
export interface WorkerSlot {
  readonly index: number;
  /** Response body staging, with framing room around it for streamed chunks. */
  readonly staging: Uint8Array;
  /** Application-set response header lines, already serialised as `Name: value\r\n`. */
  readonly headerLines: Uint8Array;
  /**
   * `HTTP/1.1 200 OK`, the `Date` line, then `headerLines` (the same bytes): a 200's head with
   * header lines leaves in one copy instead of two. The first two lines are refreshed when used.
   */
  readonly headBlock: Uint8Array;
  /** The wall-clock second whose `Date` line `headBlock` holds (-1: none yet). */
  headBlockSecond: number;
  /** The lines `headerLines` still holds from earlier answers (every write there tells it). */
  readonly knownLines: KnownHeaderLines;
  /** Request-body storage for bodies that are not borrowed from one socket chunk. */
  readonly body: Uint8Array;
  /** Where a streamed chunked request body is decoded, one window at a time. */
  readonly window: Uint8Array;
}

/** The fixed table of workers, carved at startup out of four arenas. */
export class WorkerTable {
  readonly slots: readonly WorkerSlot[];
  readonly #free: FreeList;

  /** The room the table takes in an engine's `ArenaReservation`. */
  static reservedBytes(limits: Limits): number {
    return ArenaReservation.spanOfAll(workerArenaSizes(limits));
  }

  /** `arenas`: the engine's reservation, to take the four arenas from (else the table makes its own). */
  constructor(limits: Limits, arenas = new ArenaReservation(WorkerTable.reservedBytes(limits))) {
    const stagingStride = stagingStrideBytes(limits);
    const [stagingBytes, headerBytes, bodyBytes, windowArenaBytes] = workerArenaSizes(limits);
    const stagingArena = arenas.take(stagingBytes);
    const headerArena = arenas.take(headerBytes);
    const bodyArena = arenas.take(bodyBytes);
    const windowBytes = limits.streamWindowBytes;
    const windowArena = arenas.take(windowArenaBytes);
    const slots: WorkerSlot[] = [];
    const headStride = headBlockStrideBytes(limits);
    for (let index = 0; index < limits.workers; index++) {
      const headBlock = headerArena.subarray(index * headStride, (index + 1) * headStride);
      slots.push({
        index,
        staging: stagingArena.subarray(index * stagingStride, (index + 1) * stagingStride),
        headerLines: headBlock.subarray(cachedDateHeaderBytes),
        headBlock,
        headBlockSecond: -1,
        knownLines: new KnownHeaderLines(),
        body: bodyArena.subarray(index * limits.maxBodyBytes, (index + 1) * limits.maxBodyBytes),
        window: windowArena.subarray(index * windowBytes, (index + 1) * windowBytes),
      });
    }
    this.slots = slots;
    this.#free = new FreeList(limits.workers);
  }

  /** Workers taken now. */
  get busy(): number {
    return this.#free.used;
  }

  /** Takes a free worker, or undefined when all are busy. */
  take(): WorkerSlot | undefined {
    const index = this.#free.take();
    return index < 0 ? undefined : this.slots[index];
  }

  /** Returns a worker to the free list. */
  give(worker: WorkerSlot): void {
    this.#free.give(worker.index);
  }
}

function stagingStrideBytes(limits: Limits): number {
  return streamFramePrefixBytes + limits.stagingBytes + streamFrameSuffixBytes;
}

/** A worker's `headBlock`: the 200 status and `Date` lines, then room for its header lines. */
function headBlockStrideBytes(limits: Limits): number {
  return cachedDateHeaderBytes + limits.maxResponseHeaderBytes;
}

/** Staging, header lines, body storage and chunked-body windows, for every worker. */
function workerArenaSizes(limits: Limits): [number, number, number, number] {
  return [
    limits.workers * stagingStrideBytes(limits),
    limits.workers * headBlockStrideBytes(limits),
    limits.workers * limits.maxBodyBytes,
    limits.workers * limits.streamWindowBytes,
  ];
}

/**
 * A 200's status and `Date` lines and `headerLength` bytes of header lines in one copy from the
 * worker's `headBlock`, whose first two lines are refreshed from `date` when its second changed:
 * each `copyWithin` is a call into the runtime of about 180 instructions, whatever the length.
 */
export function writeOkHeadWithLines(
  reserved: Uint8Array,
  worker: WorkerSlot,
  headerLength: number,
  date: CachedDateHeader,
  target: Uint8Array,
  offset: number,
): number {
  const block = worker.headBlock;
  const okHeadLength = date.okHead.length;
  if (worker.headBlockSecond !== date.second) {
    copyReserved(reserved, date.okHead, 0, okHeadLength, block, 0);
    worker.headBlockSecond = date.second;
  }
  return copyReserved(reserved, block, 0, okHeadLength + headerLength, target, offset);
}
