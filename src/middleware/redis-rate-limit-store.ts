import type { RedisConnection } from "corral";
import { storedRateLimitKey } from "./rate-limit-key.ts";
import type { RateLimitDecision, RateLimitStore } from "./rate-limit-table.ts";

// GCRA on the Redis server, one script per check, so every process sharing the Redis shares the
// limits. Time is the server's (`TIME`), the one clock they all agree on; the key expires when
// its quota is whole again, so Redis holds only keys limited right now.
// KEYS[1]: the key. ARGV: limit, window ms. Returns {allowed, remaining, reset ms, retry ms}.
const gcraScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local interval = window / limit
local stored = tonumber(redis.call('GET', KEYS[1]) or '0')
local arrival = math.max(stored, now)
local nextArrival = arrival + interval
-- Times since the epoch in ms (about 1.7e12) carry rounding errors of about 1e-4 ms that add
-- up over a burst: exact sums are whole intervals, so half an interval of slack decides.
if nextArrival - now > window + interval / 2 then
  return {0, 0, math.ceil(arrival - now), math.ceil(nextArrival - now - window)}
end
-- %.17g keeps every digit (tostring kept 14, rounding the stored time up by up to 0.05 ms).
redis.call('SET', KEYS[1], string.format('%.17g', nextArrival), 'PX', math.ceil(nextArrival - now) + 1)
local remaining = math.floor((window - (nextArrival - now)) / interval + 0.5)
return {1, remaining, math.ceil(nextArrival - now), 0}
`;

/**
 * A `rateLimit()` store on Redis through a `RedisConnection` (bounded pending commands and
 * timeouts): many processes and machines share one limit per key. When Redis is away the check
 * rejects with `RedisUnavailableError` (a 503 with `Retry-After`): limits fail closed. A key over
 * 64 characters is named by its SHA-256 digest.
 *
 * @example
 * const redis = await RedisConnection.open({ url: "redis://127.0.0.1:6379" });
 * app.use(rateLimit({ limit: 100, store: new RedisRateLimitStore(redis) }));
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: RedisConnection;
  readonly #prefix: string;

  constructor(redis: RedisConnection, options: { readonly keyPrefix?: string } = {}) {
    this.#redis = redis;
    this.#prefix = options.keyPrefix ?? "corral:rate:";
  }

  async check(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const reply = (await this.#redis.command("EVAL", [
      gcraScript,
      "1",
      `${this.#prefix}${storedRateLimitKey(key)}`,
      String(limit),
      String(windowMs),
    ])) as number[];
    const [allowed, remaining, resetMs, retryAfterMs] = reply.map(Number);
    return {
      allowed: allowed === 1,
      remaining: remaining ?? 0,
      resetMs: resetMs ?? 0,
      retryAfterMs: retryAfterMs ?? 0,
    };
  }
}
