import { type AnyContext, HttpError, middleware, optionNames, refuseUnknownOptions } from "corral";
import { peerKey } from "./peer-key.ts";
import { type RateLimitDecision, type RateLimitStore, RateLimitTable } from "./rate-limit-table.ts";

const rateLimitOptionNames = optionNames<RateLimitOptions>({
  limit: true,
  windowMs: true,
  key: true,
  store: true,
  capacity: true,
  policyName: true,
});

/** Options of `rateLimit()`. */
export interface RateLimitOptions {
  /** Requests allowed per window and key. */
  readonly limit: number;
  /** The window; one minute by default. */
  readonly windowMs?: number;
  /** The key a request counts against: the peer address by default (IPv6 by its /56). */
  readonly key?: (ctx: AnyContext) => string;
  /** Where the state lives; a `RateLimitTable` of `capacity` keys by default. */
  readonly store?: RateLimitStore;
  /** Keys the default table holds (reserved at start); 10,000 by default. */
  readonly capacity?: number;
  /** The policy's name in the RateLimit headers; "default" by default. */
  readonly policyName?: string;
}

/**
 * Limits each key (the peer address by default, an IPv6 peer by its /56 prefix) to `limit`
 * requests per `windowMs` with GCRA, which spreads the quota evenly instead of resetting it at
 * window edges. Every answer carries `RateLimit-Policy` and `RateLimit` (the IETF httpapi
 * draft's structured fields: quota `q`, window `w`, remaining `r`, seconds to reset `t`); a
 * request over the limit is a 429 with `Retry-After`, and its route does not run. State lives in
 * a fixed table reserved at start (see `RateLimitTable`), or in Redis (`RedisRateLimitStore`).
 *
 * @example
 * app.use(rateLimit({ limit: 100, windowMs: 60_000 }));
 */
export function rateLimit(options: RateLimitOptions) {
  refuseUnknownOptions(options, rateLimitOptionNames, "rateLimit()");
  const { limit } = options;
  const windowMs = options.windowMs ?? 60_000;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError(`corral: rateLimit limit must be a whole number >= 1, got ${limit}`);
  }
  if (!Number.isSafeInteger(windowMs) || windowMs < 1000) {
    throw new TypeError(
      `corral: rateLimit windowMs must be a whole number >= 1000, got ${windowMs}`,
    );
  }
  const store = options.store ?? new RateLimitTable({ capacity: options.capacity ?? 10_000 });
  const key = options.key ?? peerKey;
  const name = options.policyName ?? "default";
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
    throw new TypeError(`corral: rateLimit policyName must be 1-64 of A-Z a-z 0-9 _ . -`);
  }
  const policy = `"${name}";q=${limit};w=${Math.ceil(windowMs / 1000)}`;
  const answer = (ctx: AnyContext, decision: RateLimitDecision): undefined => {
    const reset = wholeSeconds(decision.resetMs);
    ctx.response.header("RateLimit-Policy", policy);
    ctx.response.header("RateLimit", `"${name}";r=${decision.remaining};t=${reset}`);
    if (decision.allowed) return;
    const retryAfter = String(Math.max(1, wholeSeconds(decision.retryAfterMs)));
    throw new HttpError(429, "Too Many Requests", { headers: { "Retry-After": retryAfter } });
  };
  return middleware({
    before(ctx): undefined | Promise<undefined> {
      const decision = store.check(key(ctx), limit, windowMs);
      if (decision instanceof Promise) return decision.then((settled) => answer(ctx, settled));
      return answer(ctx, decision);
    },
  });
}

/**
 * Milliseconds as whole seconds, rounded up. The store's times are sums and differences of
 * fractional clock readings, so an exact 20 s can come out as 20000.00000000006 ms: whole
 * milliseconds first, or the header would say 21.
 */
function wholeSeconds(milliseconds: number): number {
  return Math.ceil(Math.round(milliseconds) / 1000);
}
