import { copyReserved } from "./reserved-copy.ts";

/** Sets of kept lines; a power of two (the set is picked by a mask). */
const sets = 8;
/** Lines a set keeps side by side, and lines it remembers as candidates. */
const ways = 2;
/** Lines kept in all. */
const entries = sets * ways;
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
 * A line belongs to one set, picked from its lengths and first character, and a set keeps two
 * lines, so two lines of one set set on every answer are both kept. (With one line an entry,
 * `Content-Type: text/plain; charset=utf-8` and `Server: corral` shared one: set alternately,
 * each displaced the other and both were encoded on every answer.) A line is kept only when it
 * is encoded while it is one of its set's two candidates (the last two other lines encoded
 * there), in place of the set's line used least recently: a header whose value changes on every
 * answer (a request id, an ETag) never displaces a kept line, and costs two field writes.
 * Strings are compared with `===`, so equal text in another string still matches.
 */
export class HeaderLineCache {
  readonly #storage: Uint8Array;
  readonly #reserved: Uint8Array | null;
  readonly #names: (string | null)[] = new Array<string | null>(entries).fill(null);
  readonly #values: string[] = new Array<string>(entries).fill("");
  readonly #lengths = new Int32Array(entries);
  /** Per set, the way (0 or 1) of the line copied or kept last: the other one goes first. */
  readonly #recentWay = new Uint8Array(sets);
  readonly #candidateNames: (string | null)[] = new Array<string | null>(entries).fill(null);
  readonly #candidateValues: string[] = new Array<string>(entries).fill("");
  /** Per set, which of its two candidate places the next new line takes. */
  readonly #nextCandidate = new Uint8Array(sets);

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
    const set = setOf(name, value);
    let entry = set * ways;
    if (this.#names[entry] !== name || this.#values[entry] !== value) {
      entry++;
      if (this.#names[entry] !== name || this.#values[entry] !== value) return -1;
    }
    this.#recentWay[set] = entry & 1;
    const start = entry * entryBytes;
    const end = start + this.#lengths[entry]!;
    return copyReserved(this.#reserved, this.#storage, start, end, target, offset);
  }

  /** `name: value` was just encoded at `source[from, to)`: kept when it was a candidate. */
  encoded(name: string, value: string, source: Uint8Array, from: number, to: number): void {
    const set = setOf(name, value);
    const names = this.#candidateNames;
    const values = this.#candidateValues;
    let candidate = set * ways;
    if (names[candidate] !== name || values[candidate] !== value) {
      candidate++;
      if (names[candidate] !== name || values[candidate] !== value) {
        const place = this.#nextCandidate[set]!;
        names[set * ways + place] = name;
        values[set * ways + place] = value;
        this.#nextCandidate[set] = place ^ 1;
        return;
      }
    }
    if (to - from > entryBytes) return;
    names[candidate] = null;
    values[candidate] = "";
    const way = this.#recentWay[set]! ^ 1;
    const entry = set * ways + way;
    copyReserved(this.#reserved, source, from, to, this.#storage, entry * entryBytes);
    this.#names[entry] = name;
    this.#values[entry] = value;
    this.#lengths[entry] = to - from;
    this.#recentWay[set] = way;
  }
}

function setOf(name: string, value: string): number {
  const first = value.length > 0 ? value.charCodeAt(0) : 0;
  return (name.length * 31 + value.length * 7 + first) & (sets - 1);
}
