import { DatabaseBusyError } from "./world-database.ts";

/**
 * The waits before each new try of a query that found the database busy (another process holds
 * SQLite's write lock): doubling from 1 ms, 511 ms in all. Another process's transaction lasts
 * under a millisecond, so contention between the processes of `--processes N` passes at the
 * first tries; a lock held longer (a backup, a migration, another tool) gets a 503 with
 * `Retry-After` after half a second, the order of the PostgreSQL pool's wait bound (1 s).
 */
export const busyRetryDelaysMs: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** What the retries need of a request: a sleep that leaves the event loop to other requests. */
export interface Sleeper {
  sleep(milliseconds: number): Promise<void>;
}

/**
 * After `query` threw `thrown` on the synchronous path: when it was `DatabaseBusyError`, tries
 * `query` again after each of `busyRetryDelaysMs` (on `ctx.sleep`, so other requests are served
 * meanwhile, and a client that leaves ends the wait) and hands the first result to `answer`; the
 * last `DatabaseBusyError` goes to the App's error handler, a 503 with `Retry-After`. Any other
 * error is thrown again at once.
 *
 * @example
 * try {
 *   answerJson(ctx, database.updateRandomWorlds(count));
 * } catch (error) {
 *   return answerWhenNotBusy(ctx, error, () => database.updateRandomWorlds(count), answerJson);
 * }
 */
export async function answerWhenNotBusy<Ctx extends Sleeper, T>(
  ctx: Ctx,
  thrown: unknown,
  query: () => T,
  answer: (ctx: Ctx, value: T) => void,
): Promise<void> {
  let busy = thrown;
  for (const delayMs of busyRetryDelaysMs) {
    if (!(busy instanceof DatabaseBusyError)) throw busy;
    await ctx.sleep(delayMs);
    let value: T;
    try {
      value = query();
    } catch (error) {
      busy = error;
      continue;
    }
    answer(ctx, value);
    return;
  }
  throw busy;
}
