import { copyReserved } from "./reserved-copy.ts";

/** Lines kept; a power of two (the entry is picked by a mask). */
const entries = 16;
/** The longest line kept, CRLF included: longer lines are encoded every time. */
const entryBytes = 128;

/** The room a `HeaderLineCache` takes in the engine's reservation. */
export const headerLineCacheBytes = entries * entryBytes;

/**
 * Encoded response header lines (`Name: value\r\n`) that handlers set on answer after answer,
 * kept in the engine's reservation: a kept line is one copy into the worker's header area where
 * encoding it from its strings runs a loop over every character (about 15 instructions each; a
 * `Content-Type: text/plain; charset=utf-8` line about 600, its copy about 300).
 *
 * Each line has one entry, picked from its lengths and first character. A line is kept only when
 * it is encoded twice in a row for its entry (it was the entry's candidate): a header whose value
 * changes on every answer (a request id, an ETag) never displaces a kept line, and costs two
 * field writes. Strings are compared with `===`, so equal text in another string still matches.
 */
export class HeaderLineCache {
  readonly #storage: Uint8Array;
  readonly #reserved: Uint8Array | null;
  readonly #names: (string | null)[] = new Array<string | null>(entries).fill(null);
  readonly #values: string[] = new Array<string>(entries).fill("");
  readonly #lengths = new Int32Array(entries);
  readonly #candidateNames: (string | null)[] = new Array<string | null>(entries).fill(null);
  readonly #candidateValues: string[] = new Array<string>(entries).fill("");

  /**
   * `storage` (`headerLineCacheBytes`) is a piece of `reserved`, the engine's reservation of
   * which the workers' header areas are pieces too (or null when pieces are separate arrays).
   */
  constructor(storage: Uint8Array, reserved: Uint8Array | null) {
    if (storage.length !== headerLineCacheBytes) {
      throw new RangeError(
        `corral: internal error, the header lines need ${headerLineCacheBytes} bytes`,
      );
    }
    this.#storage = storage;
    this.#reserved = reserved;
  }

  /** Copies the kept line `name: value` to `target` at `offset`; the offset after it, or -1. */
  copy(name: string, value: string, target: Uint8Array, offset: number): number {
    const entry = entryOf(name, value);
    const length = this.#lengths[entry]!;
    if (length === 0 || this.#names[entry] !== name || this.#values[entry] !== value) return -1;
    const start = entry * entryBytes;
    return copyReserved(this.#reserved, this.#storage, start, start + length, target, offset);
  }

  /** `name: value` was just encoded at `source[from, to)`: kept when it was the candidate. */
  encoded(name: string, value: string, source: Uint8Array, from: number, to: number): void {
    const entry = entryOf(name, value);
    if (this.#candidateNames[entry] !== name || this.#candidateValues[entry] !== value) {
      this.#candidateNames[entry] = name;
      this.#candidateValues[entry] = value;
      return;
    }
    if (to - from > entryBytes) return;
    copyReserved(this.#reserved, source, from, to, this.#storage, entry * entryBytes);
    this.#names[entry] = name;
    this.#values[entry] = value;
    this.#lengths[entry] = to - from;
  }
}

function entryOf(name: string, value: string): number {
  const first = value.length > 0 ? value.charCodeAt(0) : 0;
  return (name.length * 31 + value.length * 7 + first) & (entries - 1);
}
