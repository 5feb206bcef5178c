import { escapeHtml } from "../html-escape.ts";

/** The first size of the buffer: most pages fit, and it doubles up to `maxPageBytes` if not. */
const initialBytes = 16 * 1024;
/**
 * Pieces up to this many characters are copied by a loop when they are ASCII: a native
 * `utf8Write` costs 20-40 ns whatever the length, a loop about 3 ns a character.
 */
const loopedPieceLength = 12;

/**
 * `Buffer.prototype.utf8Write`, which Bun (and Node) have but the typings leave out: it writes at
 * an offset like `write(text, offset)` at about two thirds of its cost (22 against 36 ns).
 */
interface Utf8Writable extends Buffer {
  utf8Write(text: string, offset: number): number;
}

/**
 * A page's UTF-8 bytes, written piece by piece as a template renders, within `maxPageBytes`.
 * Writing the pieces directly spares what a page built as a string costs: JavaScriptCore joins
 * the pieces of a string made by `+=` (a rope) before anything can read it, and joining a
 * rendered page of a few hundred pieces took longer than rendering it (about 4.6 µs for a
 * 1.2 KiB TechEmpower fortunes page), then it was encoded. Each piece is escaped by
 * `escapeHtml` when asked and encoded as `TextEncoder` would (a lone surrogate becomes U+FFFD;
 * a high surrogate ending one piece pairs with a low one starting the next, as in a joined
 * string). The buffer is kept for the next page: it holds at most `maxPageBytes`.
 */
export class PageBytes {
  readonly maxPageBytes: number;
  #buffer = Buffer.alloc(0) as Utf8Writable;
  /** Bytes written so far. */
  length = 0;
  /** A high surrogate that ended the last piece, not written yet (see the class). */
  #high = "";

  constructor(maxPageBytes: number) {
    this.maxPageBytes = maxPageBytes;
  }

  /**
   * Ends the page: its bytes, a view valid until the next page is written; undefined when a last
   * lone surrogate (written as U+FFFD) would pass `maxPageBytes`.
   */
  finish(): Uint8Array | undefined {
    if (this.#high !== "") {
      this.#high = "";
      if (!this.write("\ufffd", false)) return undefined;
    }
    return this.#buffer.subarray(0, this.length);
  }

  /** Starts a new page. */
  clear(): void {
    this.length = 0;
    this.#high = "";
  }

  /**
   * Appends `text` as UTF-8, HTML-escaped when `escaping`; false (the page then unusable) when
   * it would pass `maxPageBytes`.
   */
  write(text: string, escaping: boolean): boolean {
    if (text.length === 0) return true;
    let piece = escaping ? escapeHtml(text) : text;
    if (this.#high !== "") {
      piece = this.#high + piece;
      this.#high = "";
    }
    const last = piece.charCodeAt(piece.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#high = piece.slice(-1);
      piece = piece.slice(0, -1);
    }
    const most = piece.length * 3;
    if (this.length + most > this.#buffer.length && !this.#grow(most)) {
      // Near the bound: the exact length decides.
      if (this.length + Buffer.byteLength(piece) > this.maxPageBytes) return false;
    }
    if (piece.length <= loopedPieceLength && this.#copyAscii(piece)) return true;
    this.length += this.#buffer.utf8Write(piece, this.length);
    return true;
  }

  /**
   * Appends text encoded once before (a template's own text: `encodeTemplateText`), the same
   * bytes `write(text, false)` would give; false when they would pass `maxPageBytes`.
   */
  writeEncoded(encoded: Uint8Array, text: string): boolean {
    // A high surrogate waits from the last piece: the text's first unit decides what it becomes.
    if (this.#high !== "") return this.write(text, false);
    const at = this.length;
    const end = at + encoded.length;
    if (end > this.#buffer.length && !this.#grow(encoded.length)) return false;
    const buffer = this.#buffer;
    if (encoded.length <= loopedPieceLength) {
      for (let index = 0; index < encoded.length; index++) buffer[at + index] = encoded[index]!;
    } else {
      buffer.set(encoded, at);
    }
    this.length = end;
    return true;
  }

  /** Copies an ASCII `piece` with a loop; false (nothing written) when it is not ASCII. */
  #copyAscii(piece: string): boolean {
    const buffer = this.#buffer;
    const at = this.length;
    for (let index = 0; index < piece.length; index++) {
      const code = piece.charCodeAt(index);
      if (code > 0x7f) return false;
      buffer[at + index] = code;
    }
    this.length = at + piece.length;
    return true;
  }

  /** Makes room for `most` more bytes, up to `maxPageBytes`; false when that is not enough. */
  #grow(most: number): boolean {
    const needed = this.length + most;
    if (this.#buffer.length < this.maxPageBytes) {
      let size = Math.max(this.#buffer.length, initialBytes);
      while (size < needed && size < this.maxPageBytes) size *= 2;
      const grown = Buffer.alloc(Math.min(size, this.maxPageBytes)) as Utf8Writable;
      grown.set(this.#buffer.subarray(0, this.length));
      this.#buffer = grown;
    }
    return needed <= this.#buffer.length;
  }
}

const textEncoder = new TextEncoder();

/**
 * A template's text as `writeEncoded` takes it, or null for text that cannot be written as
 * bytes made once: text ending in a high surrogate, whose bytes depend on what comes next.
 */
export function encodeTemplateText(text: string): Uint8Array | null {
  const last = text.charCodeAt(text.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) return null;
  return textEncoder.encode(text);
}
