import { writeLatin1 } from "./ascii.ts";

/** The status line most responses start with, kept just before the `Date` line. */
const okStatusLine = "HTTP/1.1 200 OK\r\n";
/** `Date: Thu, 01 Jan 2026 00:00:00 GMT\r\n`: RFC 9110 §5.6.7's IMF-fixdate has a fixed length. */
const dateLineBytes = 37;

/** The bytes a `CachedDateHeader` keeps: the 200 status line, then the `Date` line. */
export const cachedDateHeaderBytes = okStatusLine.length + dateLineBytes;

/**
 * The `Date` header line (RFC 9110 §6.6.1), rebuilt at most once per second by the sweep so that
 * responses copy pre-encoded bytes instead of formatting a date each time. The line is kept just
 * after `HTTP/1.1 200 OK\r\n`, so that a 200's head starts with one copy of both; the bytes are
 * rewritten in place, so views of them always hold the current date.
 */
export class CachedDateHeader {
  #second = -1;
  /** `HTTP/1.1 200 OK\r\n` followed by the `Date` line. */
  readonly okHead: Uint8Array;
  /** The `Date` line alone. */
  readonly bytes: Uint8Array;

  /**
   * `storage` (`cachedDateHeaderBytes` long) is where the lines are kept: a piece of the engine's
   * reservation, so that they are copied into output within one memory.
   */
  constructor(wallClockMs: number, storage: Uint8Array = new Uint8Array(cachedDateHeaderBytes)) {
    if (storage.length !== cachedDateHeaderBytes) {
      throw new RangeError(
        `corral: internal error, the Date line needs ${cachedDateHeaderBytes} bytes`,
      );
    }
    writeLatin1(storage, 0, okStatusLine);
    this.okHead = storage;
    this.bytes = storage.subarray(okStatusLine.length);
    this.refresh(wallClockMs);
  }

  /** The wall-clock second the line holds: a copy of it is current while this is unchanged. */
  get second(): number {
    return this.#second;
  }

  /** Rebuilds the line when the wall-clock second changed. */
  refresh(wallClockMs: number): void {
    const second = Math.floor(wallClockMs / 1000);
    if (second === this.#second) return;
    const line = `Date: ${new Date(second * 1000).toUTCString()}\r\n`;
    // Years before 1000 or after 9999 have another length: no clock here is set to them.
    if (line.length !== dateLineBytes) return;
    this.#second = second;
    writeLatin1(this.bytes, 0, line);
  }
}
