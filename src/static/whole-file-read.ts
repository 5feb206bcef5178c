import { fstatSync, readSync, type Stats } from "node:fs";
import { diskValidators, sameFile } from "./disk-file.ts";
import { MemoryFile } from "./memory-file.ts";

/**
 * Reads a small file whole from its open descriptor, with the validators of `stats` and
 * `tagSuffix`. Undefined when the file changed in place while it was read (it ended early, or its
 * state is no longer `stats`): the bytes read may mix old and new content, and no tag names them.
 */
export function readWholeFile(fd: number, stats: Stats, tagSuffix: string): MemoryFile | undefined {
  const bytes = new Uint8Array(stats.size);
  let offset = 0;
  while (offset < bytes.length) {
    const count = readSync(fd, bytes, offset, bytes.length - offset, offset);
    if (count <= 0) return undefined;
    offset += count;
  }
  if (!sameFile(fstatSync(fd), stats)) return undefined;
  return new MemoryFile(bytes, diskValidators(stats, tagSuffix));
}
