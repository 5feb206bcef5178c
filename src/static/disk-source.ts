import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  read,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { sep } from "node:path";
import type { ContentCoding } from "../http/content-coding.ts";
import {
  type FileLookup,
  type FileSource,
  type StaticFile,
  variantSuffixes,
} from "./static-file.ts";

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
}

/**
 * Files under one folder on disk. Every request opens its file once; the real path of the open
 * descriptor must lie inside the folder's real path (so a symlink inside the folder to a file
 * inside is served, and one leading outside is missing), name no dotfile unless allowed, and be a
 * regular file or a directory.
 */
export class DiskSource implements FileSource {
  readonly #root: string;
  readonly #realRoot: string;
  readonly #options: DiskSourceOptions;

  constructor(root: string, options: DiskSourceOptions) {
    this.#realRoot = realpathSync(root);
    if (!fstatIsDirectory(this.#realRoot)) {
      throw new TypeError(`corral: the static folder ${root} is not a directory`);
    }
    this.#root = this.#realRoot;
    this.#options = options;
  }

  lookup(segments: readonly string[], trailingSlash: boolean): FileLookup {
    const name = segments.join("/");
    const opened = this.#open(name);
    if (opened === undefined) return missing;
    if (opened.stats.isDirectory()) {
      closeSync(opened.fd);
      if (!trailingSlash) return directory;
      const index = this.#options.indexFile;
      if (index === undefined) return missing;
      const indexName = name === "" ? index : `${name}/${index}`;
      const indexFile = this.#open(indexName);
      if (indexFile === undefined) return missing;
      if (!indexFile.stats.isFile()) {
        closeSync(indexFile.fd);
        return missing;
      }
      return {
        kind: "file",
        file: new DiskFile(indexFile.fd, indexFile.stats, ""),
        name: indexName,
      };
    }
    if (trailingSlash || !opened.stats.isFile()) {
      closeSync(opened.fd);
      return missing;
    }
    return { kind: "file", file: new DiskFile(opened.fd, opened.stats, ""), name };
  }

  variant(name: string, coding: ContentCoding): StaticFile | undefined {
    const opened = this.#open(name + variantSuffixes[coding]);
    if (opened === undefined) return undefined;
    if (!opened.stats.isFile()) {
      closeSync(opened.fd);
      return undefined;
    }
    return new DiskFile(opened.fd, opened.stats, `-${coding}`);
  }

  /** Opens `name` under the root; undefined when absent, unreadable or outside. */
  #open(name: string): { fd: number; stats: Stats } | undefined {
    let fd: number;
    try {
      fd = openSync(name === "" ? this.#root : this.#root + sep + name, openFlags);
    } catch {
      return undefined;
    }
    try {
      const real =
        descriptorLinks !== undefined
          ? readlinkSync(descriptorLinks + fd)
          : realpathSync(this.#root + sep + name);
      if (!this.#contains(real)) {
        closeSync(fd);
        return undefined;
      }
      return { fd, stats: fstatSync(fd) };
    } catch {
      closeSync(fd);
      return undefined;
    }
  }

  #contains(real: string): boolean {
    const root = this.#realRoot;
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

function fstatIsDirectory(path: string): boolean {
  const fd = openSync(path, constants.O_RDONLY);
  try {
    return fstatSync(fd).isDirectory();
  } finally {
    closeSync(fd);
  }
}

/** An open file: one descriptor, so every byte sent comes from the inode that was opened. */
class DiskFile implements StaticFile {
  readonly size: number;
  readonly validators: { readonly etag: string; readonly lastModified: number };
  readonly bytes = undefined;
  readonly #fd: number;
  readonly #modifiedMs: number;
  readonly #changedMs: number;
  #open = true;
  #pieces = 0;

  constructor(fd: number, stats: Stats, tagSuffix: string) {
    this.#fd = fd;
    this.size = stats.size;
    this.#modifiedMs = stats.mtimeMs;
    this.#changedMs = stats.ctimeMs;
    // Strong (RFC 9110 §8.8.3): size and modification time to the microsecond name these bytes;
    // a change in place while a file is sent is caught by `unchanged()` and the answer cut
    // short, so one tag never stands for two contents. Strong tags are what If-Range needs.
    const micros = Math.floor(stats.mtimeMs * 1000);
    this.validators = {
      etag: `"${stats.size.toString(16)}-${micros.toString(16)}${tagSuffix}"`,
      lastModified: stats.mtimeMs,
    };
  }

  read(target: Uint8Array, position: number): number | Promise<number> {
    // The first piece is read at once: a small file is then answered without a trip through the
    // thread pool. Later pieces of a large file are read off the event loop.
    if (this.#pieces++ === 0) return readSync(this.#fd, target, 0, target.length, position);
    return new Promise((resolve, reject) => {
      read(this.#fd, target, 0, target.length, position, (error, bytesRead) => {
        if (error) reject(error);
        else resolve(bytesRead);
      });
    });
  }

  unchanged(): boolean {
    const now = fstatSync(this.#fd);
    return (
      now.size === this.size && now.mtimeMs === this.#modifiedMs && now.ctimeMs === this.#changedMs
    );
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    closeSync(this.#fd);
  }
}
