import type { ParameterEntry } from "./parameter-records.ts";

const ampersand = "&";
const equalsSign = "=";
const equalsCode = 0x3d;
const ampersandCode = 0x26;

/**
 * Walks the `name=value` pieces of raw `application/x-www-form-urlencoded` text (WHATWG URL
 * §5.1) one at a time, as offsets: nothing is sliced or allocated until `entry()` is asked for.
 * Each character is looked at a bounded number of times, however the pieces are shaped.
 */
export class EntryCursor {
  readonly #raw: string;
  /** Where the next piece starts. */
  #start = 0;
  /**
   * The next "=" at or after the current piece (the text's length when none), kept across
   * pieces: searching afresh in each piece would rescan a long run of pieces without "=".
   */
  #equals = -1;
  /** The current piece: `raw[pieceStart, pieceEnd)`, its first "=" at `pieceEquals` or none. */
  pieceStart = 0;
  pieceEnd = 0;
  pieceEquals = 0;

  constructor(raw: string) {
    this.#raw = raw;
  }

  /** Moves to the next non-empty piece; false when there is none. */
  next(): boolean {
    const raw = this.#raw;
    this.#start = skipAmpersands(raw, this.#start);
    while (this.#start < raw.length) {
      const start = this.#start;
      let end = raw.indexOf(ampersand, start);
      if (end < 0) end = raw.length;
      this.#start = end + 1;
      // WHATWG URL §5.1 step 3: an empty sequence between `&`s (or at either end) is skipped.
      if (end === start) continue;
      if (this.#equals < start) {
        this.#equals = raw.indexOf(equalsSign, start);
        if (this.#equals < 0) this.#equals = raw.length;
      }
      this.pieceStart = start;
      this.pieceEnd = end;
      this.pieceEquals = Math.min(this.#equals, end);
      return true;
    }
    return false;
  }

  /** Whether the current piece's raw name is `name`. */
  nameIs(name: string): boolean {
    return (
      this.pieceEquals - this.pieceStart === name.length &&
      this.#raw.startsWith(name, this.pieceStart)
    );
  }

  /** The current piece as an entry: split at its first "=", `""` as value when it has none. */
  entry(): ParameterEntry {
    const raw = this.#raw;
    const equals = this.pieceEquals;
    return {
      nameRaw: raw.slice(this.pieceStart, equals),
      valueRaw: equals < this.pieceEnd ? raw.slice(equals + 1, this.pieceEnd) : "",
    };
  }
}

/**
 * The number of non-empty pieces in `raw`, counting no further than `stopAfter + 1`: a caller
 * checking a limit learns it is passed without walking the rest of a long text.
 */
export function countEntries(raw: string, stopAfter: number): number {
  let count = 0;
  let start = skipAmpersands(raw, 0);
  while (start < raw.length && count <= stopAfter) {
    let end = raw.indexOf(ampersand, start);
    if (end < 0) end = raw.length;
    if (end > start) count++;
    start = skipAmpersands(raw, end + 1);
  }
  return count;
}

/**
 * The first index from `start` that is not "&": a run of empty pieces (a body of a million
 * "&"s, which no limit counts) is crossed in one loop instead of an `indexOf` call each, about
 * five times faster.
 */
function skipAmpersands(raw: string, start: number): number {
  let index = start;
  while (index < raw.length && raw.charCodeAt(index) === ampersandCode) index++;
  return index;
}

/**
 * `countEntries` over the bytes of a form body, before any string is made of them: a body over
 * the limit is refused without a copy of itself.
 */
export function countEntryBytes(bytes: Uint8Array, stopAfter: number): number {
  let count = 0;
  let start = 0;
  for (let index = 0; index < bytes.length && count <= stopAfter; index++) {
    if (bytes[index] !== ampersandCode) continue;
    if (index > start) count++;
    start = index + 1;
  }
  // The last piece has no "&" after it; once the count is past the limit, it need not count.
  return count <= stopAfter && start < bytes.length ? count + 1 : count;
}

/** The last name `firstInRaw` found to hold neither "=" nor "&". */
let lastSplitFreeName = "";

/**
 * The first entry named `name`, found without splitting the rest (the rules `EntryCursor` has).
 * Written with `charCodeAt` loops, not `indexOf` and `startsWith`: on a short query each of those
 * is a call into the runtime that costs more than the loop. Each character of `raw` is looked at
 * at most twice (once against `name`, once for the next "&").
 */
export function firstInRaw(raw: string, name: string): ParameterEntry | undefined {
  const nameLength = name.length;
  // A name holding "=" or "&" can never match: entries split at them. Handlers ask for the same
  // few names again and again, so the last name found free of both is not looked at again.
  if (name !== lastSplitFreeName) {
    for (let index = 0; index < nameLength; index++) {
      const code = name.charCodeAt(index);
      if (code === equalsCode || code === ampersandCode) return undefined;
    }
    lastSplitFreeName = name;
  }
  const length = raw.length;
  let start = 0;
  while (start < length) {
    let index = start;
    let matched = 0;
    while (
      matched < nameLength &&
      index < length &&
      raw.charCodeAt(index) === name.charCodeAt(matched)
    ) {
      index++;
      matched++;
    }
    if (matched === nameLength) {
      // An empty name matches only a piece that is not empty (WHATWG URL §5.1 step 3).
      const code = index < length ? raw.charCodeAt(index) : ampersandCode;
      if (code === ampersandCode && index > start) return { nameRaw: name, valueRaw: "" };
      if (code === equalsCode) {
        let end = index + 1;
        while (end < length && raw.charCodeAt(end) !== ampersandCode) end++;
        return { nameRaw: name, valueRaw: raw.slice(index + 1, end) };
      }
    }
    while (index < length && raw.charCodeAt(index) !== ampersandCode) index++;
    start = index + 1;
  }
  return undefined;
}
