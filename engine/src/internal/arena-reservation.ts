/** WebAssembly memory is made of 64 KiB pages, at most 65,536 of them (4 GiB). */
const wasmPageBytes = 64 * 1024;
const wasmMaxPages = 65_536;
/** Each piece starts on its own cache line. */
const pieceAlignment = 64;

/**
 * One engine's reserved memory, made at once and carved into its arenas (head, output, worker and
 * WebSocket buffers). Zeroed, and its pages join the resident set only when first written.
 *
 * Why not `new Uint8Array(bytes)` per arena: JavaScriptCore takes an array's storage from its
 * allocator, which sometimes hands out a range it must clear first, and clearing writes every
 * page. On the demo with the default limits, 1 start in 10 to 20 came up with a whole 16 MiB
 * arena resident before any request (once a 64 MiB one), and the memory-budget test read a peak
 * 15 MiB higher than usual. WebAssembly memory is fresh pages from the system, already zero (140
 * demo starts, none resident), and an array over it reads and writes as fast as any other (its
 * buffer has a fixed length). One memory per engine, not one per arena: each one costs the
 * runtime a garbage collection once many are alive, and a process that makes hundreds of
 * engines (a test suite) made them 30 times slower with eight.
 */
export class ArenaReservation {
  /** The reservation, or null when each piece is its own plain array (see the constructor). */
  readonly #bytes: Uint8Array | null;
  readonly #capacity: number;
  #used = 0;

  /**
   * Reserves room for pieces whose `span`s add up to `bytes`. Without WebAssembly memory of that
   * size (over 4 GiB together, which a typed array cannot be either, or refused by the system),
   * each piece is its own zeroed array, as before there was one reservation.
   */
  constructor(bytes: number) {
    this.#bytes = reserveZeroedBytes(bytes);
    this.#capacity = bytes;
  }

  /** Bytes reserved: what the pieces' spans add up to. */
  get capacity(): number {
    return this.#capacity;
  }

  /** The whole reservation, of which every piece is a view; null when pieces are their own arrays. */
  get whole(): Uint8Array | null {
    return this.#bytes;
  }

  /** The room a piece of `bytes` takes, alignment included: what the constructor's sum adds. */
  static span(bytes: number): number {
    return Math.ceil(bytes / pieceAlignment) * pieceAlignment;
  }

  /** The room pieces of these sizes take together: what a reservation for all of them needs. */
  static spanOfAll(sizes: readonly number[]): number {
    return sizes.reduce((total, bytes) => total + ArenaReservation.span(bytes), 0);
  }

  /** The next `bytes` of the reservation. */
  take(bytes: number): Uint8Array {
    const start = this.#used;
    const end = start + ArenaReservation.span(bytes);
    if (end > this.#capacity) {
      throw new RangeError(
        `corral: internal error, an arena of ${bytes} bytes does not fit in the reservation ` +
          `(${this.#capacity - start} bytes left)`,
      );
    }
    this.#used = end;
    if (this.#bytes === null) return new Uint8Array(bytes);
    return this.#bytes.subarray(start, start + bytes);
  }

  /** The next `count` 32-bit words of the reservation. */
  takeWords(count: number): Uint32Array {
    const bytes = this.take(count * 4);
    return new Uint32Array(bytes.buffer, bytes.byteOffset, count);
  }
}

function reserveZeroedBytes(bytes: number): Uint8Array | null {
  const pages = Math.ceil(bytes / wasmPageBytes);
  if (pages === 0 || pages > wasmMaxPages) return null;
  try {
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    return new Uint8Array(memory.buffer, 0, bytes);
  } catch {
    // No WebAssembly memory of that size from the system.
    return null;
  }
}
