import { asciiBytes } from "./ascii.ts";

/**
 * The `Date` header line (RFC 9110 §6.6.1), rebuilt at most once per second by the sweep so that
 * responses copy pre-encoded bytes instead of formatting a date each time.
 */
export class CachedDateHeader {
  #second = -1;
  bytes: Uint8Array = new Uint8Array(0);

  constructor(wallClockMs: number) {
    this.refresh(wallClockMs);
  }

  /** Rebuilds the line when the wall-clock second changed. */
  refresh(wallClockMs: number): void {
    const second = Math.floor(wallClockMs / 1000);
    if (second === this.#second) return;
    this.#second = second;
    this.bytes = asciiBytes(`Date: ${new Date(second * 1000).toUTCString()}\r\n`);
  }
}
