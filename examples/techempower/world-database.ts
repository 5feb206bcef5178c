import type { Fortune, World } from "./seed-data.ts";

/**
 * The four things TechEmpower's database tests do, the same for SQLite and PostgreSQL and shared
 * by every server of the comparison (corral's App, Bun.serve, Hono, Elysia), so that only the
 * framework differs. Every read of a World row is its own query, as TechEmpower requires.
 */
export interface WorldDatabase {
  /** `sqlite` or `postgres`. */
  readonly kind: DatabaseKind;
  /**
   * The same queries answered at once, for a database that runs on the calling thread (SQLite):
   * there is nothing to wait for, so a handler can stay synchronous. Undefined for a database
   * across the network (PostgreSQL), whose answers come later.
   */
  readonly synchronous: SynchronousWorldDatabase | undefined;
  /** One World row by id (1..10000). */
  findWorld(id: number): Promise<World>;
  /** `count` World rows, each by its own query, ids chosen at random. */
  findRandomWorlds(count: number): Promise<World[]>;
  /** Every Fortune row, in the database's order. */
  fortunes(): Promise<Fortune[]>;
  /**
   * `count` random World rows, each read by its own query, given a new random `randomNumber`
   * and written back (in one transaction or one bulk statement); returns the rows as written.
   */
  updateRandomWorlds(count: number): Promise<World[]>;
  /** Closes the database (the pool, or the file). */
  close(): Promise<void>;
}

/**
 * The queries of `WorldDatabase` for a database that answers on the calling thread: a value, not
 * a promise. An `await` on a value that is already there still costs two promise jobs per
 * request: measured alternately, 10-20% of a `/db` request on corral's App.
 */
export interface SynchronousWorldDatabase {
  /** One World row by id (1..10000). */
  findWorld(id: number): World;
  /** `count` World rows, each by its own query, ids chosen at random. */
  findRandomWorlds(count: number): World[];
  /** Every Fortune row, in the database's order. */
  fortunes(): Fortune[];
  /** `count` random World rows read, given a new `randomNumber` and written back. */
  updateRandomWorlds(count: number): World[];
}

export type DatabaseKind = "sqlite" | "postgres";

/**
 * The database is there but every connection it allows is taken and the wait for one is over
 * its bound (count or time): the request is answered 503 with `Retry-After`, never queued
 * without end.
 */
export class DatabaseBusyError extends Error {
  override readonly name = "DatabaseBusyError";
  /** Seconds after which a retry makes sense (the `Retry-After` value). */
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds = 1) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The database cannot be reached (refused, closed, gone away) or did not answer within its
 * deadline: 503 with `Retry-After`. The next request tries again: no restart is needed.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = "DatabaseUnavailableError";
  readonly retryAfterSeconds: number;

  constructor(message: string, options?: { readonly cause?: unknown }, retryAfterSeconds = 1) {
    super(message, options);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Whether an error means "answer 503 with Retry-After" (busy or unavailable database). */
export function isDatabaseUnavailable(
  error: unknown,
): error is DatabaseBusyError | DatabaseUnavailableError {
  return error instanceof DatabaseBusyError || error instanceof DatabaseUnavailableError;
}
