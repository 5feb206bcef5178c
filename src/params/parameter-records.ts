import { countEntries, EntryCursor, firstInRaw } from "./entry-cursor.ts";

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

/**
 * Called before every read: a function, or an object whose `assertLive()` throws once the data
 * behind the records is gone (the App passes its request view, so no closure is made).
 *
 * @example
 * const guard: LivenessGuard = { assertLive() {} };
 */
export type LivenessGuard = (() => void) | { assertLive(): void };

/**
 * @internal A request's query as the engine holds it: its text, made on first need, and the
 * first value of a name, found over the request's bytes (an engine `Exchange` is one).
 */
export interface RequestQuerySource {
  readonly query: string;
  queryValueRaw(name: string): string | undefined;
}

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
  /**
   * The entries as objects: given to the constructor, or built once `entries` is read. Until
   * then every member walks `#raw` and makes only the entries it returns, so a large form costs
   * no more than its text.
   */
  #built: readonly ParameterEntry[] | undefined;
  /** The number of entries once counted; -1 before. */
  #length = -1;
  /** The text; undefined until first needed when the records read a request's query. */
  #raw: string | undefined;
  readonly #guard: LivenessGuard | undefined;
  /** The request whose query these are, when made by `ofRequestQuery`. */
  #source: RequestQuerySource | undefined = undefined;

  /**
   * Wraps raw text, or entries already split (the array is taken over, not copied).
   * `assertLive`, when given, runs first in every member: the App passes one that throws once
   * the handler has returned, as for every borrowed request view.
   *
   * @example
   * const records = new ParameterRecords([{ nameRaw: "a", valueRaw: "1" }]);
   */
  constructor(entries: readonly ParameterEntry[] | string, assertLive?: LivenessGuard) {
    // Read-only by type only: Object.freeze on a large array costs more than parsing it in Bun.
    if (typeof entries === "string") {
      this.#raw = entries;
      this.#built = undefined;
    } else {
      this.#raw = "";
      this.#built = entries;
    }
    this.#guard = assertLive;
  }

  /**
   * Wraps raw `application/x-www-form-urlencoded` text (WHATWG URL §5.1): entries are the pieces
   * between `&`s, each split at its first `=`; empty pieces are skipped. Nothing is decoded, and
   * nothing is split before a member asks.
   *
   * @example
   * ParameterRecords.parse("a=1&&flag&b=x=y").entries;
   * // [{ nameRaw: "a", valueRaw: "1" }, { nameRaw: "flag", valueRaw: "" },
   * //  { nameRaw: "b", valueRaw: "x=y" }]
   */
  static parse(raw: string, assertLive?: LivenessGuard): ParameterRecords {
    return new ParameterRecords(raw, assertLive);
  }

  /**
   * @internal The query of a request: `firstRaw` looks over the request's bytes and makes only
   * the value it returns; the text is made if another member needs it.
   */
  static ofRequestQuery(source: RequestQuerySource, assertLive: LivenessGuard): ParameterRecords {
    const records = new ParameterRecords("", assertLive);
    records.#raw = undefined;
    records.#source = source;
    return records;
  }

  /** The text of the entries (a request's query is made now, once). */
  #text(): string {
    this.#raw ??= this.#source!.query;
    return this.#raw;
  }

  #checkLive(): void {
    const guard = this.#guard;
    if (guard === undefined) return;
    if (typeof guard === "function") guard();
    else guard.assertLive();
  }

  /**
   * The number of entries, duplicates counted. Counting makes no entry.
   *
   * @example
   * ParameterRecords.parse("a=1&a=2").length; // 2
   */
  get length(): number {
    this.#checkLive();
    if (this.#built !== undefined) return this.#built.length;
    if (this.#length < 0) this.#length = countEntries(this.#text(), Number.POSITIVE_INFINITY);
    return this.#length;
  }

  /**
   * All entries in their original order, made once and kept. To look at a few, prefer
   * `firstRaw`, `allRaw` or iteration: they make only the entries they return.
   *
   * @example
   * ParameterRecords.parse("b=2&a=1").entries.map((entry) => entry.nameRaw); // ["b", "a"]
   */
  get entries(): readonly ParameterEntry[] {
    this.#checkLive();
    if (this.#built === undefined) {
      const built: ParameterEntry[] = [];
      const cursor = new EntryCursor(this.#text());
      while (cursor.next()) built.push(cursor.entry());
      this.#built = built;
    }
    return this.#built;
  }

  /**
   * The first entry whose raw name equals `name` (no decoding on either side), or `undefined`.
   *
   * @example
   * ParameterRecords.parse("a=1&a=2").firstRaw("a")?.valueRaw; // "1"
   */
  firstRaw(name: string): ParameterEntry | undefined {
    const source = this.#source;
    // A request's query whose text nothing made yet: the engine finds the value over the bytes.
    // Kept this short so that JavaScriptCore inlines it into a handler reading one value, where
    // as a call it cost 160 instructions a request.
    if (source === undefined || this.#raw !== undefined || this.#built !== undefined) {
      return this.#firstRawOfText(name);
    }
    this.#checkLive();
    const valueRaw = source.queryValueRaw(name);
    return valueRaw === undefined ? undefined : { nameRaw: name, valueRaw };
  }

  #firstRawOfText(name: string): ParameterEntry | undefined {
    this.#checkLive();
    const built = this.#built;
    if (built === undefined) return firstInRaw(this.#text(), name);
    for (const entry of built) if (entry.nameRaw === name) return entry;
    return undefined;
  }

  /**
   * Every entry whose raw name equals `name`, in order; empty when there is none.
   *
   * @example
   * ParameterRecords.parse("files[]=a&x=1&files[]=b").allRaw("files[]").length; // 2
   */
  allRaw(name: string): ParameterEntry[] {
    this.#checkLive();
    const built = this.#built;
    if (built !== undefined) return built.filter((entry) => entry.nameRaw === name);
    const found: ParameterEntry[] = [];
    const cursor = new EntryCursor(this.#text());
    while (cursor.next()) if (cursor.nameIs(name)) found.push(cursor.entry());
    return found;
  }

  /**
   * Iterates the entries in order, making each as it is reached; each step checks liveness.
   *
   * @example
   * for (const entry of ParameterRecords.parse("a=1")) console.log(entry.valueRaw);
   */
  [Symbol.iterator](): Iterator<ParameterEntry> {
    this.#checkLive();
    const built = this.#built;
    const cursor = new EntryCursor(built === undefined ? this.#text() : "");
    let index = 0;
    return {
      next: (): IteratorResult<ParameterEntry> => {
        this.#checkLive();
        let entry: ParameterEntry | undefined;
        if (built !== undefined) entry = built[index++];
        else if (cursor.next()) entry = cursor.entry();
        return entry === undefined
          ? { done: true, value: undefined }
          : { done: false, value: entry };
      },
    };
  }
}
