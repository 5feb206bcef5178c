import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { HttpError } from "corral";

/** Bytes the upload folder holds by default: more is refused with 507 until files are removed. */
export const defaultMaxFolderBytes = 4 * 1024 * 1024 * 1024;
/** Files the upload folder holds by default. */
export const defaultMaxFiles = 1000;

/**
 * What the upload folder may hold, in bytes and in files: anyone may upload, and a folder without
 * a bound fills the disk. The folder is measured once at start (its visible files); then every
 * upload reserves its bytes before they are written: all of them before reading when the
 * `Content-Length` says how many, else piece by piece. A file that replaces one of the same name
 * frees the old one's bytes once it is complete. Counted in this process: with `--processes N`
 * each process counts the folder as it was at its start plus its own uploads, so the folder holds
 * at most N times the quota.
 */
export class FolderQuota {
  readonly maxBytes: number;
  readonly maxFiles: number;
  /** Complete files by name, with their sizes. */
  readonly #files = new Map<string, number>();
  #storedBytes = 0;
  #reservedBytes = 0;
  /** Uploads under way, by name. */
  readonly #uploading = new Map<string, number>();

  constructor(directory: string, maxBytes = defaultMaxFolderBytes, maxFiles = defaultMaxFiles) {
    for (const [name, value] of [
      ["maxFolderBytes", maxBytes],
      ["maxFiles", maxFiles],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`uploads: ${name} must be a whole number >= 1, got ${value}`);
      }
    }
    this.maxBytes = maxBytes;
    this.maxFiles = maxFiles;
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      // Hidden names are parts being written (or left by a crash): uploads never make one.
      if (!entry.isFile() || entry.name.startsWith(".")) continue;
      const size = statSync(join(directory, entry.name)).size;
      this.#files.set(entry.name, size);
      this.#storedBytes += size;
    }
  }

  /** Bytes of complete files plus bytes reserved by uploads under way. */
  get usedBytes(): number {
    return this.#storedBytes + this.#reservedBytes;
  }

  /**
   * Starts an upload to `name`, reserving `declaredBytes` when known; a 507 `HttpError` when the
   * folder has no room for another file or for those bytes.
   */
  begin(name: string, declaredBytes: number | undefined): UploadReservation {
    const addsFile = !this.#files.has(name) && !this.#uploading.has(name);
    if (addsFile && this.#files.size + this.#newFilesUnderWay() >= this.maxFiles) {
      throw this.#full(`it holds ${this.maxFiles} files`);
    }
    const reservation = new UploadReservation(this, name);
    if (declaredBytes !== undefined) reservation.reserveUpTo(declaredBytes);
    this.#uploading.set(name, (this.#uploading.get(name) ?? 0) + 1);
    return reservation;
  }

  /** Names being uploaded that no complete file has yet (at most one per upload under way). */
  #newFilesUnderWay(): number {
    let count = 0;
    for (const name of this.#uploading.keys()) if (!this.#files.has(name)) count++;
    return count;
  }

  /** @internal Takes `bytes` more for an upload under way, or throws a 507. */
  reserve(bytes: number): void {
    if (this.usedBytes + bytes > this.maxBytes) {
      throw this.#full(`${this.usedBytes} of its ${this.maxBytes} bytes are taken`);
    }
    this.#reservedBytes += bytes;
  }

  /** @internal An upload ended: its bytes reserved go back, and a stored file's count. */
  end(name: string, reservedBytes: number, storedBytes: number | undefined): void {
    this.#reservedBytes -= reservedBytes;
    const underWay = this.#uploading.get(name)! - 1;
    if (underWay === 0) this.#uploading.delete(name);
    else this.#uploading.set(name, underWay);
    if (storedBytes === undefined) return;
    this.#storedBytes += storedBytes - (this.#files.get(name) ?? 0);
    this.#files.set(name, storedBytes);
  }

  #full(why: string): HttpError {
    // RFC 4918 §11.5: the server cannot store what it was asked to.
    return new HttpError(507, `the upload folder is full: ${why}`, {
      body: { error: `the upload folder is full: ${why}` },
    });
  }
}

/** One upload's share of the folder: grows as its bytes come, ends once. */
export class UploadReservation {
  readonly #quota: FolderQuota;
  readonly #name: string;
  #reservedBytes = 0;
  #written = 0;
  #ended = false;

  constructor(quota: FolderQuota, name: string) {
    this.#quota = quota;
    this.#name = name;
  }

  /** Counts `bytes` more written; reserves what the reservation does not cover yet (or 507). */
  grow(bytes: number): void {
    this.#written += bytes;
    this.reserveUpTo(this.#written);
  }

  /** Makes the reservation cover `bytes` in all (a 507 when the folder has no room for them). */
  reserveUpTo(bytes: number): void {
    const missing = bytes - this.#reservedBytes;
    if (missing <= 0) return;
    this.#quota.reserve(missing);
    this.#reservedBytes += missing;
  }

  /** The file is complete with `size` bytes, or (`undefined`) nothing was stored. */
  end(size: number | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#quota.end(this.#name, this.#reservedBytes, size);
  }
}
