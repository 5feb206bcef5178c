/** Lines a worker remembers, from the start of its header area. */
export const knownLineCount = 4;

/**
 * Which encoded header lines a worker's header area still holds from its last responses: most
 * handlers set the same lines in the same order on every answer (a `Content-Type`, a `Server`),
 * and a line already in place at the offset where it would be written needs no copy at all
 * (a copy from the engine's line cache is a lookup and a `copyWithin` call, about 440
 * instructions for a `Content-Type` line).
 *
 * The first `count` lines are known: line `i` spans `[end(i - 1), ends[i])` (line 0 starts at 0)
 * and is `names[i]: values[i]\r\n`. Every write into the area must tell this object
 * (`wrote`, or `forget` for a write it cannot describe), which forgets every line the write
 * may have touched.
 */
export class KnownHeaderLines {
  readonly #names: (string | null)[] = new Array<string | null>(knownLineCount).fill(null);
  readonly #values: string[] = new Array<string>(knownLineCount).fill("");
  readonly #ends = new Int32Array(knownLineCount);
  #count = 0;

  /** Where the line `name: value` that starts at `start` ends, when it is already there; else -1. */
  endOf(start: number, name: string, value: string): number {
    for (let index = 0; index < this.#count; index++) {
      const lineStart = index === 0 ? 0 : this.#ends[index - 1]!;
      if (lineStart < start) continue;
      if (lineStart > start || this.#names[index] !== name || this.#values[index] !== value) {
        return -1;
      }
      return this.#ends[index]!;
    }
    return -1;
  }

  /** `name: value` was written at `[start, end)`: remembered when it follows the known lines. */
  wrote(start: number, end: number, name: string, value: string): void {
    let count = 0;
    while (count < this.#count && this.#ends[count]! <= start) count++;
    const knownEnd = count === 0 ? 0 : this.#ends[count - 1]!;
    if (knownEnd === start && count < knownLineCount) {
      this.#names[count] = name;
      this.#values[count] = value;
      this.#ends[count] = end;
      count++;
    }
    this.#count = count;
  }

  /** How many known lines make up exactly the first `length` bytes of the area, or -1. */
  linesEndingAt(length: number): number {
    for (let index = 0; index < this.#count; index++) {
      const end = this.#ends[index]!;
      if (end === length) return index + 1;
      if (end > length) return -1;
    }
    return -1;
  }

  /** The name of known line `index` (below `linesEndingAt`'s count). */
  nameAt(index: number): string {
    return this.#names[index]!;
  }

  /** The value of known line `index`. */
  valueAt(index: number): string {
    return this.#values[index]!;
  }

  /** The area was written in a way no line describes (lines removed, kept lines put back). */
  forget(): void {
    this.#count = 0;
  }
}
