import { htmlEscapes } from "../html-escape.ts";

/** The escape of each ASCII character `escapeHtml` escapes, by character code. */
const escapes: (string | undefined)[] = [];
for (const [character, escaped] of Object.entries(htmlEscapes)) {
  escapes[character.charCodeAt(0)] = escaped;
}
/** The most UTF-8 bytes one UTF-16 unit can become, escaped (`&quot;`) or not (3). */
const mostBytesPerUnitEscaped = 6;
const mostBytesPerUnit = 3;
/** The first size of the buffer: most pages fit, and it doubles up to `maxPageBytes` if not. */
const initialBytes = 16 * 1024;

/**
 * A page's UTF-8 bytes, written piece by piece as a template renders, within `maxPageBytes`.
 * Writing the bytes directly spares what a page built as a string costs: JavaScriptCore joins
 * the pieces of a string made by `+=` (a rope) before anything can read it, and joining a
 * rendered page of a few hundred pieces took longer than rendering it (about 4.6 µs for a
 * 1.2 KiB TechEmpower fortunes page), then it was encoded. Escaping (`escapeHtml`'s table) and
 * UTF-8 encoding (a lone surrogate becomes U+FFFD, as `TextEncoder` writes it) happen in the
 * same pass. The buffer is kept for the next page: it holds at most `maxPageBytes`.
 */
export class PageBytes {
  readonly maxPageBytes: number;
  #buffer = new Uint8Array(0);
  /** Bytes written so far. */
  length = 0;
  /**
   * A high surrogate that ended the last piece, not written yet: joined into a string, the next
   * piece's low surrogate would make a pair with it, so the bytes must too.
   */
  #high = 0;

  constructor(maxPageBytes: number) {
    this.maxPageBytes = maxPageBytes;
  }

  /**
   * Ends the page: its bytes, a view valid until the next page is written; undefined when a last
   * lone surrogate (written as U+FFFD) would pass `maxPageBytes`.
   */
  finish(): Uint8Array | undefined {
    if (this.#high !== 0) {
      this.#high = 0;
      if (!this.write("\ufffd", false)) return undefined;
    }
    return this.#buffer.subarray(0, this.length);
  }

  /** Starts a new page. */
  clear(): void {
    this.length = 0;
    this.#high = 0;
  }

  /**
   * Appends `text` as UTF-8, HTML-escaped when `escaping`; false (and nothing more written
   * than fits) when the page would pass `maxPageBytes`.
   */
  write(text: string, escaping: boolean): boolean {
    if (text.length === 0) return true;
    let piece = text;
    const high = this.#high;
    if (high !== 0) {
      this.#high = 0;
      piece = String.fromCharCode(high) + text;
    }
    const last = piece.charCodeAt(piece.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#high = last;
      piece = piece.slice(0, -1);
    }
    const most = piece.length * (escaping ? mostBytesPerUnitEscaped : mostBytesPerUnit);
    if (this.length + most > this.#buffer.length && !this.#grow(most)) {
      return this.#writeChecked(piece, escaping);
    }
    let at = this.length;
    const buffer = this.#buffer;
    for (let index = 0; index < piece.length; index++) {
      const code = piece.charCodeAt(index);
      if (code < 0x80) {
        const escaped = escaping ? escapes[code] : undefined;
        if (escaped === undefined) buffer[at++] = code;
        else
          for (let part = 0; part < escaped.length; part++) buffer[at++] = escaped.charCodeAt(part);
        continue;
      }
      const point = codePointAt(piece, index, code);
      if (point > 0xffff) index++;
      at = writeCodePoint(buffer, at, point);
    }
    this.length = at;
    return true;
  }

  /** Makes room for `most` more bytes; false when that would pass `maxPageBytes`. */
  #grow(most: number): boolean {
    const needed = this.length + most;
    if (needed > this.maxPageBytes && this.#buffer.length === this.maxPageBytes) return false;
    let size = Math.max(this.#buffer.length, initialBytes);
    while (size < needed && size < this.maxPageBytes) size *= 2;
    size = Math.min(size, this.maxPageBytes);
    const grown = new Uint8Array(size);
    grown.set(this.#buffer.subarray(0, this.length));
    this.#buffer = grown;
    return needed <= size;
  }

  /** `write` near the bound: each character checked, exactly. */
  #writeChecked(text: string, escaping: boolean): boolean {
    const buffer = this.#buffer;
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code < 0x80) {
        const escaped = escaping ? escapes[code] : undefined;
        const count = escaped === undefined ? 1 : escaped.length;
        if (this.length + count > buffer.length) return false;
        if (escaped === undefined) buffer[this.length++] = code;
        else
          for (let part = 0; part < count; part++) buffer[this.length++] = escaped.charCodeAt(part);
        continue;
      }
      const point = codePointAt(text, index, code);
      const count = point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
      if (this.length + count > buffer.length) return false;
      if (point > 0xffff) index++;
      this.length = writeCodePoint(buffer, this.length, point);
    }
    return true;
  }
}

/** The code point at `index` (whose unit is `code`, not ASCII); a lone surrogate is U+FFFD. */
function codePointAt(text: string, index: number, code: number): number {
  if (code < 0xd800 || code > 0xdfff) return code;
  if (code <= 0xdbff && index + 1 < text.length) {
    const low = text.charCodeAt(index + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
  }
  return 0xfffd;
}

/** Writes a non-ASCII code point as UTF-8 at `at`; returns the offset after it. */
function writeCodePoint(buffer: Uint8Array, at: number, point: number): number {
  if (point < 0x800) {
    buffer[at] = 0xc0 | (point >> 6);
    buffer[at + 1] = 0x80 | (point & 0x3f);
    return at + 2;
  }
  if (point < 0x10000) {
    buffer[at] = 0xe0 | (point >> 12);
    buffer[at + 1] = 0x80 | ((point >> 6) & 0x3f);
    buffer[at + 2] = 0x80 | (point & 0x3f);
    return at + 3;
  }
  buffer[at] = 0xf0 | (point >> 18);
  buffer[at + 1] = 0x80 | ((point >> 12) & 0x3f);
  buffer[at + 2] = 0x80 | ((point >> 6) & 0x3f);
  buffer[at + 3] = 0x80 | (point & 0x3f);
  return at + 4;
}
