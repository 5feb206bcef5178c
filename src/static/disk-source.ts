import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { sep } from "node:path";
import type { ContentCoding } from "../http/content-coding.ts";
import { DiskFile, diskValidators, sameFile } from "./disk-file.ts";
import { FileChangedError } from "./file-changed-error.ts";
import { MemoryFile } from "./memory-file.ts";
import {
  type FileLookup,
  type FileSource,
  type StaticFile,
  variantSuffixes,
} from "./static-file.ts";
import { type VerifiedFile, VerifiedFiles } from "./verified-files.ts";
import { readWholeFile } from "./whole-file-read.ts";

// O_NONBLOCK: opening a FIFO someone placed in the folder must not block the event loop; regular
// files ignore the flag. O_NOCTTY: a terminal device never becomes the process's terminal.
const openFlags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
// Linux names the file an open descriptor really refers to, after every symlink: containment is
// checked on what was opened, so no symlink swapped in after a check can lead out.
const descriptorLinks = process.platform === "linux" ? "/proc/self/fd/" : undefined;

/** Options of a folder on disk. */
export interface DiskSourceOptions {
  readonly allowDotfiles: boolean;
  readonly indexFile: string | undefined;
  /** Names remembered as verified (0: every request checks containment again). */
  readonly maxVerifiedNames: number;
  /** Bytes of small files kept in memory, all together and per file. */
  readonly maxCachedBytes: number;
  readonly maxCachedFileBytes: number;
  /** Whether files go out with `sendfile` (see `StaticFilesOptions.sendfile`). */
  readonly sendfile: boolean;
}

type Found =
  | { readonly kind: "file"; readonly file: StaticFile }
  | { readonly kind: "directory" }
  | { readonly kind: "missing" };

/**
 * Files under one folder on disk. A name is verified the first time it is opened: the real path
 * of the open descriptor must lie inside the folder's real path (so a symlink inside the folder
 * to a file inside is served, and one leading outside is missing) and name no dotfile unless
 * allowed. Later requests `stat` the name: the same inode in the same state needs no second
 * check, and a small file's bytes come from memory; anything else is verified again.
 */
export class DiskSource implements FileSource {
  readonly #root: string;
  readonly #options: DiskSourceOptions;
  readonly #verified: VerifiedFiles;

  constructor(root: string, options: DiskSourceOptions) {
    this.#root = realpathSync(root);
    if (!statSync(this.#root).isDirectory()) {
      throw new TypeError(`corral: the static folder ${root} is not a directory`);
    }
    this.#options = options;
    this.#verified = new VerifiedFiles(options.maxVerifiedNames, options.maxCachedBytes);
  }

  lookup(segments: readonly string[], trailingSlash: boolean): FileLookup {
    const name = segments.join("/");
    const found = this.#find(name, "");
    if (found.kind === "file") {
      if (!trailingSlash) return { kind: "file", file: found.file, name };
      found.file.close();
      return missing;
    }
    if (found.kind === "missing" || !trailingSlash) return found;
    const index = this.#options.indexFile;
    if (index === undefined) return missing;
    const indexName = name === "" ? index : `${name}/${index}`;
    const indexFile = this.#find(indexName, "");
    return indexFile.kind === "file"
      ? { kind: "file", file: indexFile.file, name: indexName }
      : missing;
  }

  variant(name: string, coding: ContentCoding): StaticFile | undefined {
    const found = this.#find(name + variantSuffixes[coding], `-${coding}`);
    return found.kind === "file" ? found.file : undefined;
  }

  #find(name: string, tagSuffix: string): Found {
    const path = name === "" ? this.#root : this.#root + sep + name;
    let stats: Stats | undefined;
    try {
      stats = statSync(path, { throwIfNoEntry: false });
    } catch {
      return missing;
    }
    if (stats === undefined) return missing;
    if (stats.isFile()) {
      const known = this.#verified.get(name);
      if (known !== undefined && sameFile(known.stats, stats)) {
        if (known.cached !== undefined) {
          return { kind: "file", file: cachedAs(known, known.cached, tagSuffix) };
        }
        const reopened = this.#reopen(path, known.stats, tagSuffix);
        if (reopened !== undefined) return { kind: "file", file: reopened };
      }
    } else if (!stats.isDirectory()) {
      return missing;
    }
    return this.#verify(name, path, tagSuffix);
  }

  /** Opens a verified name again; the descriptor must still be the verified inode. */
  #reopen(path: string, verified: Stats, tagSuffix: string): DiskFile | undefined {
    let fd: number;
    try {
      fd = openSync(path, openFlags);
    } catch {
      return undefined;
    }
    const stats = fstatSync(fd);
    if (sameFile(stats, verified))
      return new DiskFile(fd, stats, tagSuffix, this.#options.sendfile);
    closeSync(fd);
    return undefined;
  }

  /** Opens `name`, checks where the descriptor really is, and remembers a file found inside. */
  #verify(name: string, path: string, tagSuffix: string): Found {
    this.#verified.delete(name);
    let fd: number;
    try {
      fd = openSync(path, openFlags);
    } catch {
      return missing;
    }
    let keepOpen = false;
    try {
      const real =
        descriptorLinks !== undefined ? readlinkSync(descriptorLinks + fd) : realpathSync(path);
      if (!this.#contains(real)) return missing;
      const stats = fstatSync(fd);
      if (stats.isDirectory()) return directory;
      if (!stats.isFile()) return missing;
      if (stats.size <= this.#options.maxCachedFileBytes && this.#options.maxVerifiedNames > 0) {
        const cached = readWholeFile(fd, stats, tagSuffix);
        // Changed in place while read, before any byte went out: the documented 503 with
        // Retry-After, as for a larger file caught before its first piece; the name is verified
        // again at the next request.
        if (cached === undefined) throw new FileChangedError();
        this.#verified.set(name, { stats, cached, tagSuffix });
        return { kind: "file", file: cached };
      }
      this.#verified.set(name, { stats, cached: undefined, tagSuffix });
      keepOpen = true;
      return { kind: "file", file: new DiskFile(fd, stats, tagSuffix, this.#options.sendfile) };
    } catch (error) {
      if (error instanceof FileChangedError) throw error;
      return missing;
    } finally {
      if (!keepOpen) closeSync(fd);
    }
  }

  #contains(real: string): boolean {
    const root = this.#root;
    if (real === root) return true;
    const prefix = root.endsWith(sep) ? root : root + sep;
    if (!real.startsWith(prefix)) return false;
    if (this.#options.allowDotfiles) return true;
    // The request named no dotfile, but a symlink may lead to one: the rule holds for the target.
    return !real.includes(`${sep}.`, prefix.length - 1);
  }
}

const missing = { kind: "missing" } as const;
const directory = { kind: "directory" } as const;

/**
 * The cached bytes of a name under the tag of the way they are asked for: `app.js.br` asked for
 * itself is another representation than the br variant of `app.js` (no `Content-Encoding`), so
 * each keeps its own ETag whichever was asked for first.
 */
function cachedAs(known: VerifiedFile, cached: MemoryFile, tagSuffix: string): MemoryFile {
  if (known.tagSuffix === tagSuffix) return cached;
  return new MemoryFile(cached.bytes, diskValidators(known.stats, tagSuffix));
}
