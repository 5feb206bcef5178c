/**
 * Incremental UTF-8 validation (RFC 3629 §4) for text messages that arrive in pieces: a
 * sequence may be split across frames and socket chunks, and a message fails at the first byte
 * that no valid sequence could contain (RFC 6455 §8.1: fail fast, close 1007), not at its end.
 * Overlong forms, surrogates (U+D800..U+DFFF) and code points above U+10FFFF are invalid.
 */
export class Utf8Validator {
  /** Continuation bytes the current sequence still needs (0 between characters). */
  #needed = 0;
  /** The range the next continuation byte must fall in (narrower after E0, ED, F0, F4). */
  #lower = 0x80;
  #upper = 0xbf;

  /** Starts a new message. */
  reset(): void {
    this.#needed = 0;
    this.#lower = 0x80;
    this.#upper = 0xbf;
  }

  /** Whether the bytes so far end on a character boundary (a message may end here). */
  get complete(): boolean {
    return this.#needed === 0;
  }

  /**
   * Checks `bytes[start, end)` as the continuation of everything checked since `reset()`;
   * false at the first byte that makes the text invalid. Linear, allocates nothing.
   */
  check(bytes: Uint8Array, start: number, end: number): boolean {
    let needed = this.#needed;
    let lower = this.#lower;
    let upper = this.#upper;
    let index = start;
    while (index < end) {
      const byte = bytes[index]!;
      if (needed === 0) {
        if (byte < 0x80) {
          index++;
          // Runs of ASCII are the common case: skip them without touching the state.
          while (index < end && bytes[index]! < 0x80) index++;
          continue;
        }
        lower = 0x80;
        upper = 0xbf;
        if (byte >= 0xc2 && byte <= 0xdf) {
          needed = 1;
        } else if (byte >= 0xe0 && byte <= 0xef) {
          needed = 2;
          if (byte === 0xe0) lower = 0xa0;
          else if (byte === 0xed) upper = 0x9f;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          needed = 3;
          if (byte === 0xf0) lower = 0x90;
          else if (byte === 0xf4) upper = 0x8f;
        } else {
          return this.#fail();
        }
      } else {
        if (byte < lower || byte > upper) return this.#fail();
        lower = 0x80;
        upper = 0xbf;
        needed--;
      }
      index++;
    }
    this.#needed = needed;
    this.#lower = lower;
    this.#upper = upper;
    return true;
  }

  #fail(): false {
    this.reset();
    return false;
  }
}
