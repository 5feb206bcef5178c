import { closeSync, fstatSync, read, readSync, type Stats } from "node:fs";
import { formatHttpDate } from "../http/http-date.ts";
import { nextTurn } from "../waiting/next-turn.ts";
import { type CachedRead, loadCachedRead } from "./page-cache-read.ts";
import type { FileValidators, StaticFile } from "./static-file.ts";

/**
 * The validators of a file on disk. The ETag is strong (RFC 9110 §8.8.3): size and modification
 * time to the microsecond name these bytes; a change in place while a file is sent is caught by
 * `unchanged()` and the answer cut short, so one tag never stands for two contents. Strong tags
 * are what If-Range needs. The inode is left out, so servers sharing a copy of a folder agree.
 */
export function diskValidators(stats: Stats, tagSuffix: string): FileValidators {
  const micros = Math.floor(stats.mtimeMs * 1000);
  return {
    etag: `"${stats.size.toString(16)}-${micros.toString(16)}${tagSuffix}"`,
    lastModified: stats.mtimeMs,
    lastModifiedText: formatHttpDate(stats.mtimeMs),
  };
}

/** Whether two stats describe the same file in the same state. */
export function sameFile(left: Stats, right: Stats): boolean {
  return (
    left.ino === right.ino &&
    left.dev === right.dev &&
    left.size === right.size &&
    left.mtimeMs === right.mtimeMs &&
    left.ctimeMs === right.ctimeMs
  );
}

/**
 * The most bytes of one file read on the event loop before the next piece waits for the next
 * turn: one staging window. Sixteen clients taking a 10 MiB file as fast as it came, at 1 MiB
 * each in a row, kept a side request waiting 20-25 ms (p50, 50 ms p99); at 64 KiB 0.7 ms (6 ms),
 * as with `Bun.file`, for the same server CPU per download.
 */
export const maxBytesReadOnLoop = 64 * 1024;

/** An open file: one descriptor, so every byte sent comes from the inode that was opened. */
export class DiskFile implements StaticFile {
  readonly size: number;
  readonly validators: FileValidators;
  readonly bytes = undefined;
  readonly descriptor: number | undefined;
  readonly #fd: number;
  readonly #stats: Stats;
  #open = true;
  #pieces = 0;
  /** Bytes read on the event loop since the last turn this file waited for. */
  #readOnLoop = 0;

  /** `sendfile`: hand the descriptor out for `sendfile` (see `StaticFile.descriptor`). */
  constructor(fd: number, stats: Stats, tagSuffix: string, sendfile: boolean) {
    this.#fd = fd;
    this.descriptor = sendfile ? fd : undefined;
    this.#stats = stats;
    this.size = stats.size;
    this.validators = diskValidators(stats, tagSuffix);
  }

  read(target: Uint8Array, position: number): number | Promise<number> {
    // The first piece is read at once; later pieces of a large file on the event loop only when
    // the page cache holds them (see page-cache-read.ts), else off it.
    if (this.#pieces++ === 0) return readSync(this.#fd, target, 0, target.length, position);
    const cachedRead = loadCachedRead();
    if (cachedRead === null) return this.#readOffLoop(target, position);
    // A client that reads as fast as the pieces are written never blocks the stream, so one
    // download of a large file would hold the event loop until it ended: after
    // `maxBytesReadOnLoop` in a row, the next piece waits for the next turn.
    if (this.#readOnLoop >= maxBytesReadOnLoop) {
      this.#readOnLoop = 0;
      return nextTurn().then(() => this.#readCached(cachedRead, target, position));
    }
    return this.#readCached(cachedRead, target, position);
  }

  #readCached(cachedRead: CachedRead, target: Uint8Array, position: number) {
    const count = cachedRead(this.#fd, target, position);
    if (count < 0) return this.#readOffLoop(target, position);
    this.#readOnLoop += count;
    return count;
  }

  #readOffLoop(target: Uint8Array, position: number): Promise<number> {
    this.#readOnLoop = 0;
    return new Promise((resolve, reject) => {
      read(this.#fd, target, 0, target.length, position, (error, bytesRead) => {
        if (error) reject(error);
        else resolve(bytesRead);
      });
    });
  }

  /**
   * Whether the open inode still holds what it held when opened: size and modification time.
   * Not its change time, which a rename over the path (the usual deploy) also moves when it
   * unlinks this inode, whose bytes stay as they were: the download goes on, old and whole.
   */
  unchanged(): boolean {
    const now = fstatSync(this.#fd);
    const opened = this.#stats;
    return now.size === opened.size && now.mtimeMs === opened.mtimeMs;
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    closeSync(this.#fd);
  }
}
