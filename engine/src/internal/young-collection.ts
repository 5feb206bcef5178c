import { edenGC } from "bun:jsc";

/**
 * Requests between two young-generation collections. JavaScriptCore lets its young generation
 * grow with the whole heap, and the engine's reserved arenas count as heap: left alone, a burst
 * of small requests (each makes a few short-lived objects) grew the resident set by a few hundred
 * MiB of garbage before a collection ran. A young collection of mostly dead objects is cheap, and
 * measured it made such bursts faster, not slower (the heap stays in cache).
 */
export const requestsPerYoungCollection = 16_384;

/**
 * How many requests a WebSocket upgrade counts for. A handshake leaves far more short-lived
 * objects than a plain request (request views, header strings, the accept key, the session's
 * setup) next to the session that stays: in a burst of 2,000 upgrades, left to the usual count,
 * that garbage grew the heap by about 6 KiB per socket and the pages stayed resident after the
 * collection (11.2 KiB of RSS per idle socket); counted as 128 requests (a young collection
 * every 128 upgrades), 5.4-6.4 KiB.
 */
export const upgradeWeight = 128;

/** Runs a young-generation collection every `requestsPerYoungCollection` requests. */
export class YoungCollection {
  #requests = 0;

  /** One more request was dispatched (`weight` requests' worth of garbage: see `upgradeWeight`). */
  count(weight = 1): void {
    this.#requests += weight;
    if (this.#requests < requestsPerYoungCollection) return;
    this.#requests = 0;
    edenGC();
  }
}
