import { encodeHeaderLine } from "./header-lines.ts";
import { knownLineCount } from "./known-header-lines.ts";
import type { WorkerSlot } from "./worker-table.ts";

/**
 * Header lines a handler drafted before it gave its worker back to wait (`releaseWhileWaiting`),
 * kept until a worker comes back. When the worker's known lines describe them all (the usual
 * case: a middleware's `Server` line, a `Content-Type`), only their names and values are kept, no
 * bytes, and a worker that comes back with the same lines in place (most do: every request of
 * the route writes them first) needs no write at all. Otherwise the bytes are copied out.
 * Copying every time cost an array made per wait and a write per grant, and the grant made the
 * worker forget its known lines, so the next request on it encoded its lines again. Counted with
 * bench/instructions.ts (an App route drafting one `Server` line, then awaiting off the worker):
 * 455 fewer JIT-compiled instructions a request, and about 300 fewer in Bun's code (which moves
 * by more than that with where collections fall).
 */
export class KeptHeaderLines {
  /** Lines kept by description, or 0. */
  #lineCount = 0;
  readonly #names: string[] = new Array<string>(knownLineCount).fill("");
  readonly #values: string[] = new Array<string>(knownLineCount).fill("");
  /** Lines kept as bytes, when the worker's known lines did not describe them. */
  #bytes: Uint8Array | null = null;

  /** Keeps the first `length` bytes of `worker`'s header lines. */
  keep(worker: WorkerSlot, length: number): void {
    const known = worker.knownLines;
    const count = known.linesEndingAt(length);
    if (count < 0) {
      this.#bytes = worker.headerLines.slice(0, length);
      this.#lineCount = 0;
      return;
    }
    this.#bytes = null;
    for (let index = 0; index < count; index++) {
      this.#names[index] = known.nameAt(index);
      this.#values[index] = known.valueAt(index);
    }
    this.#lineCount = count;
  }

  /** Puts what was kept back at the start of `worker`'s header lines, and keeps nothing. */
  restore(worker: WorkerSlot): void {
    const bytes = this.#bytes;
    if (bytes !== null) {
      this.#bytes = null;
      worker.headerLines.set(bytes, 0);
      worker.knownLines.forget();
      return;
    }
    const count = this.#lineCount;
    this.#lineCount = 0;
    const known = worker.knownLines;
    let start = 0;
    for (let index = 0; index < count; index++) {
      const name = this.#names[index]!;
      const value = this.#values[index]!;
      let end = known.endOf(start, name, value);
      if (end < 0) {
        end = encodeHeaderLine(worker.headerLines, start, name, value);
        known.wrote(start, end, name, value);
      }
      start = end;
    }
  }

  /** Drops what was kept (the request ended while the handler waited). */
  clear(): void {
    this.#bytes = null;
    this.#lineCount = 0;
  }
}
