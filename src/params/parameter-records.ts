/**
 * One `name=value` entry of a query or URL-encoded form, undecoded. Decode explicitly with
 * `params.percentDecodeInto` (query) or `params.formDecodeInto` (form) into your own buffer.
 *
 * @example
 * const entry: ParameterEntry = { nameRaw: "q", valueRaw: "caf%C3%A9" };
 */
export interface ParameterEntry {
  /** The name exactly as sent, escapes and `+` included. */
  readonly nameRaw: string;
  /** The value exactly as sent; `""` when the entry had no `=`. Always text, never converted. */
  readonly valueRaw: string;
}

const ampersand = "&";
const equalsSign = "=";
const equalsCode = 0x3d;

/**
 * Called before every read: a function, or an object whose `assertLive()` throws once the data
 * behind the records is gone (the App passes its request view, so no closure is made).
 *
 * @example
 * const guard: LivenessGuard = { assertLive() {} };
 */
export type LivenessGuard = (() => void) | { assertLive(): void };

/**
 * The ordered raw entries of a query (`a=1&b=2&a=3`, without `?`) or of a URL-encoded form body
 * read as Latin-1 text. Duplicates are kept in order; `files[]` is an ordinary name; every value
 * is text (`007` keeps its zeros, `false` stays the text "false"). Lookups compare raw names.
 *
 * @example
 * const query = ParameterRecords.parse("tag=a&tag=b&page=007");
 * query.firstRaw("page")?.valueRaw; // "007"
 * query.allRaw("tag").map((entry) => entry.valueRaw); // ["a", "b"]
 * for (const { nameRaw, valueRaw } of query) console.log(nameRaw, valueRaw);
 */
export class ParameterRecords implements Iterable<ParameterEntry> {
  /** The entries, split on first need; `firstRaw` scans `#raw` in place until then. */
  #parsed: readonly ParameterEntry[] | undefined;
  readonly #raw: string;
  readonly #guard: LivenessGuard | undefined;

  /**
   * Wraps entries already split; the array is taken over, not copied. `assertLive`, when given,
   * runs first in every member: the App passes one that throws once the handler has returned,
   * as for every borrowed request view.
   *
   * @example
   * const records = new ParameterRecords([{ nameRaw: "a", valueRaw: "1" }]);
   */
  constructor(entries: readonly ParameterEntry[] | string, assertLive?: LivenessGuard) {
    // Read-only by type only: Object.freeze on a large array costs more than parsing it in Bun.
    if (typeof entries === "string") {
      this.#raw = entries;
      this.#parsed = undefined;
    } else {
      this.#raw = "";
      this.#parsed = entries;
    }
    this.#guard = assertLive;
  }

  /**
   * Splits raw `application/x-www-form-urlencoded` text into entries (WHATWG URL §5.1): split on
   * `&`, then each piece at its first `=`. Nothing is decoded.
   *
   * @example
   * ParameterRecords.parse("a=1&&flag&b=x=y").entries;
   * // [{ nameRaw: "a", valueRaw: "1" }, { nameRaw: "flag", valueRaw: "" },
   * //  { nameRaw: "b", valueRaw: "x=y" }]
   */
  static parse(raw: string, assertLive?: LivenessGuard): ParameterRecords {
    return new ParameterRecords(raw, assertLive);
  }

  #entries(): readonly ParameterEntry[] {
    this.#parsed ??= splitEntries(this.#raw);
    return this.#parsed;
  }

  #checkLive(): void {
    const guard = this.#guard;
    if (guard === undefined) return;
    if (typeof guard === "function") guard();
    else guard.assertLive();
  }

  /**
   * The number of entries, duplicates counted.
   *
   * @example
   * ParameterRecords.parse("a=1&a=2").length; // 2
   */
  get length(): number {
    this.#checkLive();
    return this.#entries().length;
  }

  /**
   * All entries in their original order.
   *
   * @example
   * ParameterRecords.parse("b=2&a=1").entries.map((entry) => entry.nameRaw); // ["b", "a"]
   */
  get entries(): readonly ParameterEntry[] {
    this.#checkLive();
    return this.#entries();
  }

  /**
   * The first entry whose raw name equals `name` (no decoding on either side), or `undefined`.
   *
   * @example
   * ParameterRecords.parse("a=1&a=2").firstRaw("a")?.valueRaw; // "1"
   */
  firstRaw(name: string): ParameterEntry | undefined {
    this.#checkLive();
    const parsed = this.#parsed;
    if (parsed !== undefined) {
      for (const entry of parsed) if (entry.nameRaw === name) return entry;
      return undefined;
    }
    return firstInRaw(this.#raw, name);
  }

  /**
   * Every entry whose raw name equals `name`, in order; empty when there is none.
   *
   * @example
   * ParameterRecords.parse("files[]=a&x=1&files[]=b").allRaw("files[]").length; // 2
   */
  allRaw(name: string): ParameterEntry[] {
    this.#checkLive();
    return this.#entries().filter((entry) => entry.nameRaw === name);
  }

  /**
   * Iterates the entries in order; each step checks liveness again.
   *
   * @example
   * for (const entry of ParameterRecords.parse("a=1")) console.log(entry.valueRaw);
   */
  [Symbol.iterator](): Iterator<ParameterEntry> {
    this.#checkLive();
    const entries = this.#entries();
    let index = 0;
    return {
      next: (): IteratorResult<ParameterEntry> => {
        this.#checkLive();
        const entry = entries[index++];
        return entry === undefined
          ? { done: true, value: undefined }
          : { done: false, value: entry };
      },
    };
  }
}

/** Splits raw text into entries (the algorithm `parse` documents). */
function splitEntries(raw: string): ParameterEntry[] {
  const entries: ParameterEntry[] = [];
  // The next "=" at or after `start` (raw.length when none), kept across pieces so that a run
  // of pieces without "=" ("a&b&c...") stays one linear scan.
  let equals = -1;
  let start = 0;
  while (start < raw.length) {
    let end = raw.indexOf(ampersand, start);
    if (end < 0) end = raw.length;
    // WHATWG URL §5.1 step 3: an empty sequence between `&`s (or at either end) is skipped.
    if (end > start) {
      if (equals < start) {
        equals = raw.indexOf(equalsSign, start);
        if (equals < 0) equals = raw.length;
      }
      entries.push(
        equals < end
          ? { nameRaw: raw.slice(start, equals), valueRaw: raw.slice(equals + 1, end) }
          : { nameRaw: raw.slice(start, end), valueRaw: "" },
      );
    }
    start = end + 1;
  }
  return entries;
}

/** The first entry named `name`, found without splitting the rest (same rules as `splitEntries`). */
function firstInRaw(raw: string, name: string): ParameterEntry | undefined {
  // A name holding "=" can never match: entries split at their first "=".
  if (name.includes(equalsSign)) return undefined;
  let start = 0;
  while (start < raw.length) {
    let end = raw.indexOf(ampersand, start);
    if (end < 0) end = raw.length;
    if (end > start && raw.startsWith(name, start)) {
      const after = start + name.length;
      if (after === end) return { nameRaw: name, valueRaw: "" };
      if (after < end && raw.charCodeAt(after) === equalsCode) {
        return { nameRaw: name, valueRaw: raw.slice(after + 1, end) };
      }
    }
    start = end + 1;
  }
  return undefined;
}
