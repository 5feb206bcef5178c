import { edenGC } from "bun:jsc";
import { CollectionCost, rechecksPerPeriod } from "./collection-cost.ts";
import { type FullCollectionPacing, processFullCollections } from "./full-collection.ts";

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

/**
 * How many requests a stream's flush counts for. A download read through staging flushes once a
 * staging window (160 times for 10 MiB), each flush leaving its promises, a file read's task and
 * a `Stats` behind, and a download is one request: counted by requests alone, 20 concurrent
 * downloads of 10 MiB grew the resident set by 10-16 MiB (and 18-23 MiB in the static bench)
 * before JavaScriptCore collected on its own. Counted as 4 requests each (a collection every
 * 4,096 flushes, about a sixth of a second of such downloads): 3-8 MiB, and 3% more downloads
 * per CPU-second (`bench/static.ts`, 10m.bin, alternated runs).
 */
export const streamFlushWeight = 4;

/**
 * How many requests a wait off the worker (`exchange.releaseWorker()`) counts for. A request that
 * gives its worker back waits for something outside the engine, a database or an upstream, and
 * what that wait leaves the engine does not see: the client's query objects, promises, rows. The
 * TechEmpower example's PostgreSQL `/queries?queries=20` (20 awaited queries a request), counted
 * as one request, took 2.5-2.8 page faults a request (a young collection every 4,096 requests
 * freed tens of MiB at once, whose pages went back to the system and faulted in again), against
 * 0.02 for `Bun.serve` on the same database module. Counted as 64 requests: 0.19, and more
 * requests per CPU-second (docs/databases.md); at 16, 1.64. Its `/db` (one query a request)
 * stayed at 0.03 and served as many.
 */
export const waitWeight = 64;

/**
 * Bytes read from sockets between two young-generation collections. Bun makes a new array for
 * every chunk it reads; left to JavaScriptCore's own pace, the arrays of a busy WebSocket (or an
 * upload) were freed in large batches, their pages went back to the system, and the next chunks
 * faulted them in again: a 16 KiB echo spent about 15% of its time in page faults. Measured
 * with a collection every 1, 4 and 16 MiB: 41k, 44-46k and 41k echoed messages per CPU-second,
 * against 21-24k without (`bench/websocket.ts`).
 */
export const inboundBytesPerYoungCollection = 4 * 1024 * 1024;

/**
 * What a chunk counts for at least, in bytes, however few it holds. Each chunk is its own
 * allocation, and what it costs the allocator does not shrink with its bytes: counted by bytes
 * alone, a keep-alive load of small requests (one chunk of about 40 bytes each) read a hundred
 * thousand chunks between collections, the freed pages went back to the system in batches and
 * came back as page faults (0.04-0.11 per request). Counted as 1 KiB each, small chunks bring a
 * collection every 4,096 of them: no faults left, and per server CPU-second (wrk, 64
 * connections, four alternated runs each) the App's hello served 6% more requests, the bare
 * engine's 4% and the TechEmpower example's `/db` 9%. Pipelined requests, 16 to a chunk, keep
 * the request count's pace, where a collection every 4,096 requests cost 3%; a 64-byte
 * WebSocket echo (a chunk per message) was unchanged.
 */
export const inboundChunkMinimumBytes = 1024;

/**
 * Bytes of response text (strings a handler had the engine encode) that count as one more
 * request. A string made per request is garbage once encoded, with the objects it was built
 * from: a TechEmpower fortunes page (1.2 KiB, rendered from 13 rows) leaves several KiB behind,
 * a hello a few hundred bytes. Counted by requests alone, about 4,096 fortunes pages went
 * between two collections (the small-chunk count), the freed pages went back to the system and
 * came back as page faults (0.13-0.24 a request, against 0.01 at a collection every 1,024). With
 * text counted at 64 bytes a request (a fortunes page counts 16, at the cap), the example served
 * 13% more pages per server CPU-second and 4% more 20-row `/queries` (about 700 bytes of JSON);
 * at 128 bytes, 5% and 5% (wrk, 64 connections, alternated 2 s rounds). Bytes copied from an
 * array the handler keeps (a file, a cached page) are not counted: they leave nothing behind.
 */
export const textBytesPerRequestWeight = 64;

/**
 * The most a response's text counts for, in requests: a large string that was not made per
 * request (a page kept as a string) costs at most a collection every
 * `requestsPerYoungCollection / (textWeightCap + 1)` requests.
 */
export const textWeightCap = 15;

/**
 * The engine's collection: a young-generation collection, counted in `stats().youngCollections`,
 * then a full one when the old generation grew enough (`FullCollectionPacing`), counted in
 * `stats().fullCollections`.
 */
export function countedEdenCollection(
  stats: { youngCollections: number; fullCollections: number },
  fullCollections: Pick<FullCollectionPacing, "afterYoungCollection"> = processFullCollections,
): () => void {
  return () => {
    stats.youngCollections++;
    edenGC();
    if (fullCollections.afterYoungCollection()) stats.fullCollections++;
  };
}

/** Where the count restarts when a collection is put off: it is looked at again 1/8 period on. */
const requestsToRecheckAt =
  requestsPerYoungCollection - requestsPerYoungCollection / rechecksPerPeriod;

/**
 * Runs a young-generation collection every `requestsPerYoungCollection` requests or every
 * `inboundBytesPerYoungCollection` bytes read (small chunks counted as
 * `inboundChunkMinimumBytes`), whichever comes first. When collections have grown dear,
 * `CollectionCost` puts off the next one that waits off the worker made due (`countWait`),
 * looking again every eighth of a period.
 */
export class YoungCollection {
  #requests = 0;
  /** The part of `#requests` that waits off the worker counted. */
  #waits = 0;
  #inboundBytes = 0;
  readonly #collect: () => unknown;
  readonly #requestWeight: number;
  readonly #cost: CollectionCost;

  /**
   * `collect` runs the collection (a test passes its own); `requestWeight` is what one request
   * counts for (the engine option `requestCollectionWeight`); `cost` keeps dear collections apart
   * (a test passes one with its own clocks).
   */
  constructor(
    collect: () => unknown = edenGC,
    requestWeight = 1,
    cost: CollectionCost = new CollectionCost(),
  ) {
    this.#collect = collect;
    this.#requestWeight = requestWeight;
    this.#cost = cost;
  }

  /** A chunk of `bytes` came from a socket (counted as `inboundChunkMinimumBytes` at least). */
  countInbound(bytes: number): void {
    this.#inboundBytes += Math.max(bytes, inboundChunkMinimumBytes);
    if (this.#inboundBytes >= inboundBytesPerYoungCollection) this.#run();
  }

  /** One more request was dispatched: `requestCollectionWeight` requests' worth of garbage. */
  countRequest(): void {
    this.count(this.#requestWeight);
  }

  /**
   * `weight` requests' worth more (see `upgradeWeight`, `streamFlushWeight`, `waitWeight`). Not a
   * default parameter: as one (the request weight) it failed a type check where the default
   * meets the argument, and JavaScriptCore recompiled its callers (bench/jit-churn.ts).
   */
  count(weight: number): void {
    this.#requests += weight;
    if (this.#requests < requestsPerYoungCollection) return;
    if (this.#waits * 2 >= this.#requests && this.#cost.defers()) {
      this.#requests = requestsToRecheckAt;
      this.#waits = Math.min(this.#waits, this.#requests);
      return;
    }
    this.#run();
  }

  /**
   * A request gave its worker back to wait for something else: `waitWeight` requests' worth. A
   * collection the waits made due (half of the count or more) may be put off when collections
   * have grown dear: the waiting requests' objects are what made them dear, and a wait's weight
   * is a guess at garbage the engine cannot see. One the requests' own work or the bytes read
   * made due runs: putting those off let two waves of form posters beside 5 MB pipeliners
   * (`test/abuse/memory-budget.test.ts`) peak at 155-166 MiB instead of 152-158.
   */
  countWait(): void {
    this.#waits += waitWeight;
    this.count(waitWeight);
  }

  /**
   * A response was published whose handler had `bytes` of text encoded: it counts as
   * `bytes / textBytesPerRequestWeight` more requests, at most `textWeightCap`.
   */
  countText(bytes: number): void {
    if (bytes < textBytesPerRequestWeight) return;
    this.count(Math.min(textWeightCap, Math.floor(bytes / textBytesPerRequestWeight)));
  }

  #run(): void {
    this.#waits = 0;
    this.#requests = 0;
    this.#inboundBytes = 0;
    this.#cost.measure(this.#collect);
  }
}
