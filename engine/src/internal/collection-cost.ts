/**
 * How much of the process's time the engine's young collections that waits made due may take. A
 * young collection visits what is alive (the requests in progress), not the garbage, so its cost
 * grows with the requests waiting at that moment: half a millisecond under a hello load, 4-9 ms
 * with 256 requests waiting on PostgreSQL, where JavaScriptCore finished the marking concurrently
 * and its collector thread and the event loop took turns on one core (0.4-2.0 thread switches a
 * request). Counted by requests alone, those collections came every 200 requests (each wait
 * counts `waitWeight`); kept to this share, 0.14-0.32 switches a request and 1.10-1.16x the
 * requests per server CPU-second on TechEmpower's PostgreSQL fortunes at 256 connections
 * (docs/databases.md).
 */
export const maximumCollectionShare = 0.05;

/**
 * A collection that cost less than this (milliseconds) never delays the next: the counts alone
 * decide, as they always did for the cheap ones.
 */
export const freeCollectionMs = 2;

/**
 * How many periods of the counts a collection may be put off at most: however dear collections
 * are, the garbage between two of them stays within this many periods' worth.
 */
export const maximumDeferredPeriods = 4;

/** How often within a period a collection put off is looked at again. */
export const rechecksPerPeriod = 8;

let freeBelowMs = freeCollectionMs;

/**
 * For tests that count collections exactly over sockets (a first collection in a busy test
 * process can cost more than `freeCollectionMs`): collections under `ms` never delay the
 * next (`Infinity`: none does); `undefined` restores `freeCollectionMs`.
 */
export function overrideFreeCollectionMs(ms: number | undefined): void {
  freeBelowMs = ms ?? freeCollectionMs;
}

/** What a `CollectionCost` reads: wall time and the process's CPU time (all threads), in ms. */
export interface CollectionClock {
  now(): number;
  cpu(): number;
}

/** The process's clocks. */
export const processClock: CollectionClock = {
  now: () => performance.now(),
  cpu: () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  },
};

/**
 * Keeps the engine's young collections under `maximumCollectionShare` of the time: after one that
 * cost `cost` ms (at least `freeCollectionMs`), the next waits until `cost /
 * maximumCollectionShare` ms have passed since it began, or until it was put off for
 * `maximumDeferredPeriods` periods.
 */
export class CollectionCost {
  readonly #clock: CollectionClock;
  /** When the next collection may run (wall ms); 0 when the last one was cheap. */
  #notBefore = 0;
  #deferrals = 0;

  constructor(clock: CollectionClock = processClock) {
    this.#clock = clock;
  }

  /**
   * Whether a collection that is due should be put off (it is looked at again an eighth of a
   * period later: `rechecksPerPeriod`).
   */
  defers(): boolean {
    if (this.#notBefore === 0) return false;
    if (this.#deferrals >= (maximumDeferredPeriods - 1) * rechecksPerPeriod) return false;
    if (this.#clock.now() >= this.#notBefore) return false;
    this.#deferrals++;
    return true;
  }

  /**
   * Runs `collect` and notes what it cost: the lesser of the wall time and the process's CPU time
   * it took, since either alone can read high for other reasons (another process taking the core
   * meanwhile; another thread's time accounted in the window).
   */
  measure(collect: () => unknown): void {
    const clock = this.#clock;
    const began = clock.now();
    const cpuBefore = clock.cpu();
    collect();
    const cost = Math.min(clock.now() - began, clock.cpu() - cpuBefore);
    this.#deferrals = 0;
    this.#notBefore = cost < freeBelowMs ? 0 : began + cost / maximumCollectionShare;
  }
}
