import type { StatsCounters } from "../stats.ts";

// What the input side does with the chunks Bun reads from a socket: fresh ones, up to 512 KiB
// each, never reused by Bun (BUN-NOTES.md, point 4), so they are kept by reference, and freed
// or counted here.

/** Whether `output` (rarely present: a response that borrowed the request body) is in `chunk`. */
export function sharesMemory(chunk: Uint8Array, output: Uint8Array | null): boolean {
  return output !== null && output.buffer === chunk.buffer;
}

/** A new chunk holding `rest` (bytes still unread) followed by `chunk` (a copy of both). */
export function joinChunks(rest: Uint8Array, chunk: Uint8Array): Uint8Array {
  const joined = new Uint8Array(rest.length + chunk.length);
  joined.set(rest, 0);
  joined.set(chunk, rest.length);
  return joined;
}

/** Chunks at least this large are freed at once; smaller ones are left to the collector. */
export const releasedChunkMinimumBytes = 16 * 1024;

/**
 * Frees a chunk's memory now instead of at the next garbage collection: detaching its buffer
 * releases the backing store at once (views of it read as empty from then on). Socket chunks
 * arrive at input speed, and left to the collector they pushed the resident set of a busy server
 * hundreds of MiB past its budget before it ran. Also for a chunk that arrives for a socket the
 * engine already let go of: Bun still reads (up to 512 KiB at a time) what a closing client sent.
 *
 * @example
 * releaseChunk(chunk); // chunk.length is 0 from now on, when it was large enough to free
 */
export function releaseChunk(chunk: Uint8Array): void {
  // Small chunks (a request or a few) are cheap young garbage; detaching them would cost more.
  // `byteLength` of the view, not of `chunk.buffer`: reading `.buffer` makes JavaScriptCore
  // materialise an ArrayBuffer object for a small typed array, which cost 15% of a request.
  if (chunk.byteLength < releasedChunkMinimumBytes) return;
  try {
    (chunk.buffer as ArrayBuffer).transfer(0);
  } catch {
    // A buffer that cannot be detached is left to the collector.
  }
}

/**
 * One connection's share of `stats.unreadInputBytes`: the chunk it keeps unread beyond its head
 * buffer (pipelined requests for a later turn, or a request waiting for a worker), counted once
 * while kept. Every connection of a server counts in the same stats, within
 * `maxUnreadInputBytes` for all together.
 */
export class UnreadChunkCount {
  #bytes = 0;
  readonly #stats: StatsCounters;
  readonly #maxUnreadInputBytes: number;

  constructor(stats: StatsCounters, maxUnreadInputBytes: number) {
    this.#stats = stats;
    this.#maxUnreadInputBytes = maxUnreadInputBytes;
  }

  /** Counts a kept chunk of `bytes`, once; false when that passes the shared limit. */
  hold(bytes: number): boolean {
    if (this.#bytes > 0) return true;
    const stats = this.#stats;
    if (stats.unreadInputBytes + bytes > this.#maxUnreadInputBytes) return false;
    stats.unreadInputBytes += bytes;
    this.#bytes = bytes;
    return true;
  }

  /** The chunk is no longer kept unread (used up, moved, dropped or replaced). */
  release(): void {
    if (this.#bytes === 0) return;
    this.#stats.unreadInputBytes -= this.#bytes;
    this.#bytes = 0;
  }
}
