import type { Stats } from "node:fs";
import type { MemoryFile } from "./memory-file.ts";

/** What a name was found to be when it was opened and checked against the folder. */
export interface VerifiedFile {
  /** The file's state then: a later `stat` of the name that matches it names the same bytes. */
  readonly stats: Stats;
  /** The whole content, for files no larger than the per-file cache limit. */
  readonly cached: MemoryFile | undefined;
  /** The ETag suffix `cached` was tagged with (`""`, or `-br` when read as a variant). */
  readonly tagSuffix: string;
}

/**
 * Names already opened and found inside the folder (on the real path of the descriptor), with
 * their inode and times: a request whose `stat` finds the same inode in the same state needs no
 * second containment check, and a small file's bytes come from memory, so a hot file costs one
 * `stat` per request. Bounded by a count and a byte budget; the oldest entries go first.
 */
export class VerifiedFiles {
  readonly #entries = new Map<string, VerifiedFile>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxEntries: number, maxBytes: number) {
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
  }

  get(name: string): VerifiedFile | undefined {
    return this.#entries.get(name);
  }

  set(name: string, entry: VerifiedFile): void {
    this.delete(name);
    if (this.#maxEntries === 0) return;
    const size = entry.cached?.size ?? 0;
    if (size > this.#maxBytes) return;
    this.#entries.set(name, entry);
    this.#bytes += size;
    for (const [oldest, old] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= old.cached?.size ?? 0;
    }
  }

  delete(name: string): void {
    const entry = this.#entries.get(name);
    if (entry === undefined) return;
    this.#entries.delete(name);
    this.#bytes -= entry.cached?.size ?? 0;
  }
}
