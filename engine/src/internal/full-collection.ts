import { fullGC, heapSize } from "bun:jsc";

/**
 * The least the heap may grow, in bytes, between two full collections the engine runs: below
 * it, a collection would cost more than the memory it gives back.
 */
export const minimumGrowthBeforeFullCollection = 16 * 1024 * 1024;

/**
 * Time after which the next young collection looks at the heap's size. A look walks every block
 * of the heap: 0.7 ms with an engine's arenas, as long as the young collection it follows, and
 * after each of them it cost a WebSocket echo 1% of its time.
 */
export const heapLookIntervalMs = 1000;

/**
 * Young collections after which the next one looks at the heap, however little time passed: when
 * collections come fast, so may promotion. A flood of requests that each waited off the worker
 * holding 200 objects brought 128 young collections a second; looking once a second, the heap
 * grew by up to 99 MiB between looks. A look every 16 costs at most a sixteenth of the young
 * collections' own time.
 */
export const youngCollectionsPerHeapLook = 16;

/**
 * Runs a full collection, when the old generation has grown enough, after a young collection
 * the engine runs. A young collection keeps what is alive at that moment (the objects of requests
 * in progress) in the old generation, where only a full collection frees it. JavaScriptCore starts
 * one when the heap has about doubled since the last, and it counts the engines' reserved arenas
 * as heap: with 110 MiB of arenas and 5 MiB of live objects, the TechEmpower example's PostgreSQL
 * routes left up to 110 MiB of dead requests resident before it collected (the resident set
 * climbed from 110 to 290 MiB in 60 s of load, and fell to 59 MiB after one full collection).
 * Here the growth allowed is the live objects' own size, as if the arenas were not heap, and at
 * least `minimumGrowthBeforeFullCollection`: the same proportion JavaScriptCore keeps, so a large
 * live heap is collected no more often than it would collect it.
 *
 * One pacing serves the process: its engines share one heap.
 */
export class FullCollectionPacing {
  #reservedBytes = 0;
  /** The heap's size after the last full collection (or the smallest seen since): 0 before any. */
  #sizeAfterFull = 0;
  #lastLook = Number.NEGATIVE_INFINITY;
  #youngSinceLook = 0;
  readonly #heapSize: () => number;
  readonly #collect: () => unknown;
  readonly #now: () => number;

  /** `size`, `collect` and `now` are JavaScriptCore's and the clock; a test passes its own. */
  constructor(
    size: () => number = heapSize,
    collect: () => unknown = fullGC,
    now: () => number = () => performance.now(),
  ) {
    this.#heapSize = size;
    this.#collect = collect;
    this.#now = now;
  }

  /**
   * An engine reserved `bytes` of arenas: they count as heap, and are not objects to collect.
   * Never taken back: a stopped engine's arenas are freed only by a collection, and counting
   * more than the heap holds brings the allowance down to its minimum, nothing worse.
   */
  countReserved(bytes: number): void {
    this.#reservedBytes += bytes;
  }

  /**
   * After a young collection: looks at the heap (once `heapLookIntervalMs` passed or
   * `youngCollectionsPerHeapLook` young collections ran since the last look) and runs a full
   * collection when it grew past the allowance; true then.
   */
  afterYoungCollection(): boolean {
    const now = this.#now();
    if (
      ++this.#youngSinceLook < youngCollectionsPerHeapLook &&
      now - this.#lastLook < heapLookIntervalMs
    ) {
      return false;
    }
    this.#youngSinceLook = 0;
    this.#lastLook = now;
    const size = this.#heapSize();
    if (this.#sizeAfterFull === 0 || size < this.#sizeAfterFull) {
      // The first look, or JavaScriptCore collected on its own: the smaller heap is the base.
      this.#sizeAfterFull = size;
      return false;
    }
    const liveObjects = Math.max(0, this.#sizeAfterFull - this.#reservedBytes);
    if (size - this.#sizeAfterFull <= Math.max(minimumGrowthBeforeFullCollection, liveObjects)) {
      return false;
    }
    this.#collect();
    this.#sizeAfterFull = this.#heapSize();
    return true;
  }
}

/** The process's pacing, shared by every engine in it. */
export const processFullCollections = new FullCollectionPacing();
