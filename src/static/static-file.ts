import type { ContentCoding } from "../http/content-coding.ts";

/** The validators of one representation (a file or one of its precompressed variants). */
export interface FileValidators {
  /** A strong entity-tag, quotes included. */
  readonly etag: string;
  /** Milliseconds since the epoch, when known. */
  readonly lastModified: number | undefined;
  /** `lastModified` as an HTTP-date, made once per file. */
  readonly lastModifiedText: string | undefined;
}

/**
 * One file (or variant) ready to send: its size, validators and a way to read it. Opened per
 * request for files on disk (one descriptor, so the bytes come from one inode), or an entry of
 * memory read at startup.
 */
export interface StaticFile {
  readonly size: number;
  readonly validators: FileValidators;
  /** The whole content when it is in memory: sent with `borrowBody`, never copied. */
  readonly bytes: Uint8Array | undefined;
  /** The open descriptor of a file on disk to send with `sendfile`; undefined otherwise. */
  readonly descriptor: number | undefined;
  /**
   * Reads up to `target.length` bytes at `position` into `target`; returns how many (0 at the
   * end). Synchronous for memory and for the first piece of a file, so small files answer at once.
   */
  read(target: Uint8Array, position: number): number | Promise<number>;
  /** Whether the file still is what was opened (size, modification and change times). */
  unchanged(): boolean;
  /** Gives the descriptor back; safe to call twice. */
  close(): void;
}

/** What a canonical path names in a folder. */
export type FileLookup =
  | { readonly kind: "file"; readonly file: StaticFile; readonly name: string }
  | { readonly kind: "directory" }
  | { readonly kind: "missing" };

/** Where static files come from: a folder on disk, or assets held in memory. */
export interface FileSource {
  /**
   * @internal Finds `segments` (decoded, canonical): a file, a directory (answered with a
   * redirect to add the slash), or nothing. With `trailingSlash`, a directory's index file or
   * nothing. (Internal, like the implementations' members: the published types strip both.)
   */
  lookup(segments: readonly string[], trailingSlash: boolean): FileLookup;
  /** @internal The precompressed variant of the file at `name` in `coding`, when it exists. */
  variant(name: string, coding: ContentCoding): StaticFile | undefined;
}

/** Suffix of the precompressed variant beside a file, by content coding. */
export const variantSuffixes: Readonly<Record<ContentCoding, string>> = Object.freeze({
  br: ".br",
  zstd: ".zst",
  gzip: ".gz",
});
