import { edenGC } from "bun:jsc";

/**
 * Requests between two young-generation collections. JavaScriptCore lets its young generation
 * grow with the whole heap, and the engine's reserved arenas count as heap: left alone, a burst
 * of small requests (each makes a few short-lived objects) grew the resident set by a few hundred
 * MiB of garbage before a collection ran. A young collection of mostly dead objects is cheap, and
 * measured it made such bursts faster, not slower (the heap stays in cache).
 */
export const requestsPerYoungCollection = 16_384;

/** Runs a young-generation collection every `requestsPerYoungCollection` requests. */
export class YoungCollection {
  #requests = 0;

  /** One more request was dispatched. */
  count(): void {
    if (++this.#requests < requestsPerYoungCollection) return;
    this.#requests = 0;
    edenGC();
  }
}
