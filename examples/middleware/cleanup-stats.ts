import { middleware, type NoLocals, type RequestOutcome } from "corral";

/**
 * How many requests ended in each outcome, as their cleanup hooks saw it.
 *
 * @example
 * const counts: CleanupCounts = { success: 3, error: 1, aborted: 0 };
 */
export type CleanupCounts = { [Outcome in RequestOutcome]: number };

/**
 * The shared state `cleanupStats` counts into.
 *
 * @example
 * const shared: CleanupShared = { cleanups: emptyCleanupCounts() };
 */
export interface CleanupShared {
  readonly cleanups: CleanupCounts;
}

/**
 * Fresh counters, all zero.
 *
 * @example
 * const shared = { cleanups: emptyCleanupCounts() };
 */
export function emptyCleanupCounts(): CleanupCounts {
  return { success: 0, error: 0, aborted: 0 };
}

/**
 * Counts every request's outcome in its `cleanup` hook, which the App runs exactly once per
 * request: after the response on success, after error mapping when something threw, and when
 * the client went away or a deadline ended the request ("aborted"). Registered first, it sees
 * every request, also those a later middleware answered.
 *
 * @example
 * const app = new App({ shared: { cleanups: emptyCleanupCounts() } }).use(cleanupStats());
 */
export function cleanupStats() {
  return middleware<NoLocals, NoLocals, CleanupShared>({
    cleanup(ctx, outcome) {
      ctx.shared.cleanups[outcome]++;
    },
  });
}
