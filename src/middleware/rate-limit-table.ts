import { storedRateLimitKey } from "./rate-limit-key.ts";

/**
 * One check's result: allowed or not, and the numbers the RateLimit headers report.
 *
 * @example
 * const { allowed, remaining } = table.check("203.0.113.7", 100, 60_000);
 */
export interface RateLimitDecision {
  readonly allowed: boolean;
  /** Requests left in the window after this one. */
  readonly remaining: number;
  /** Milliseconds until the quota is whole again (`t` of the RateLimit header). */
  readonly resetMs: number;
  /** Milliseconds until a refused request may be retried (0 when allowed). */
  readonly retryAfterMs: number;
}

/**
 * Where `rateLimit()` keeps its state: in process (`RateLimitTable`) or shared (Redis).
 *
 * @example
 * const store: RateLimitStore = new RateLimitTable({ capacity: 1000 });
 */
export interface RateLimitStore {
  /** Counts one request for `key` against `limit` per `windowMs`. */
  check(
    key: string,
    limit: number,
    windowMs: number,
  ): RateLimitDecision | Promise<RateLimitDecision>;
}

/**
 * Counters of a `RateLimitTable`.
 *
 * @example
 * table.stats().evictions; // 0 while the table is large enough
 */
export interface RateLimitTableStats {
  readonly capacity: number;
  /** Keys whose state was dropped to make room for a new key while every slot was in use. */
  readonly evictions: number;
}

/** How many slots a key may occupy, from its hash on: the probe is bounded, never a scan. */
const probeSlots = 8;

/**
 * GCRA (the generic cell rate algorithm) over a fixed table reserved at construction: `capacity`
 * keys, one theoretical arrival time each, open addressing with a bounded probe. Nothing grows
 * with the keys an attacker invents. When a new key finds its probe window full of keys still
 * limited, the one whose state ends soonest is dropped (counted in `stats().evictions`): that key
 * starts afresh, which at worst lets it send one more burst; size `capacity` above the number of
 * clients active within one window to keep that at zero. A key over 64 characters is kept as its
 * SHA-256 digest, so no slot holds more than 64 characters of key.
 *
 * @example
 * const table = new RateLimitTable({ capacity: 10_000 });
 * table.check("203.0.113.7", 100, 60_000).allowed; // true
 */
export class RateLimitTable implements RateLimitStore {
  readonly #keys: Array<string | undefined>;
  /** Theoretical arrival time of each slot's key (ms on `now()`'s clock); 0 when free. */
  readonly #arrival: Float64Array;
  readonly #now: () => number;
  #evictions = 0;

  constructor(options: { readonly capacity: number; readonly now?: () => number }) {
    const { capacity } = options;
    if (!Number.isSafeInteger(capacity) || capacity < 1 || capacity > 10_000_000) {
      throw new RangeError(`corral: rate limit capacity must be 1-10000000, got ${capacity}`);
    }
    this.#keys = new Array<string | undefined>(capacity).fill(undefined);
    this.#arrival = new Float64Array(capacity);
    this.#now = options.now ?? (() => performance.now());
  }

  check(key: string, limit: number, windowMs: number): RateLimitDecision {
    const now = this.#now();
    const slot = this.#slotFor(storedRateLimitKey(key), now);
    const interval = windowMs / limit;
    const arrival = Math.max(this.#arrival[slot]!, now);
    const next = arrival + interval;
    // The request fits when the quota it would leave used is at most the window.
    if (next - now > windowMs + 1e-6) {
      const retryAfterMs = next - now - windowMs;
      return { allowed: false, remaining: 0, resetMs: arrival - now, retryAfterMs };
    }
    this.#arrival[slot] = next;
    const remaining = Math.floor((windowMs - (next - now)) / interval + 1e-9);
    return { allowed: true, remaining, resetMs: next - now, retryAfterMs: 0 };
  }

  stats(): RateLimitTableStats {
    return { capacity: this.#keys.length, evictions: this.#evictions };
  }

  /** The slot of `key`: its own, a free or expired one in its probe window, or the evicted one. */
  #slotFor(key: string, now: number): number {
    const keys = this.#keys;
    const capacity = keys.length;
    const start = Number(Bun.hash(key) % BigInt(capacity));
    let reusable = -1;
    let soonest = -1;
    for (let step = 0; step < Math.min(probeSlots, capacity); step++) {
      const slot = (start + step) % capacity;
      const occupant = keys[slot];
      if (occupant === key) return slot;
      const expired = occupant === undefined || this.#arrival[slot]! <= now;
      if (expired && reusable < 0) reusable = slot;
      if (soonest < 0 || this.#arrival[slot]! < this.#arrival[soonest]!) soonest = slot;
    }
    let slot = reusable;
    if (slot < 0) {
      slot = soonest;
      this.#evictions++;
    }
    keys[slot] = key;
    this.#arrival[slot] = 0;
    return slot;
  }
}
