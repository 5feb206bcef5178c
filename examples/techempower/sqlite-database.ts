import { Database, SQLiteError, type Statement } from "bun:sqlite";
import {
  type Fortune,
  fortuneRows,
  randomWorldNumber,
  type World,
  worldRowCount,
} from "./seed-data.ts";
import {
  DatabaseBusyError,
  type SynchronousWorldDatabase,
  type WorldDatabase,
} from "./world-database.ts";

/** A transaction of `count` World rows (`Database.transaction`'s result; bun:sqlite names no type). */
interface WorldsTransaction {
  deferred(count: number): World[];
  immediate(count: number): World[];
}

/**
 * How long opening the file waits for another process's lock (busy_timeout): of several
 * processes starting on one file, one fills the tables (10,000 rows) while the others wait.
 */
const openBusyTimeoutMs = 5000;

/**
 * How long a statement of a request waits for another process's write lock, on the event loop,
 * before SQLITE_BUSY. SQLite's busy handler tries again after 1 ms and after 2 ms, which waits
 * out another process's `/updates` transaction (0.7 ms for 500 rows, measured) without leaving
 * the synchronous path; a lock held longer costs the loop no more than that, once (see
 * `#lockHeldElsewhere`), and the request waits for it on a timer (`answerWhenNotBusy`).
 */
const busyTimeoutMs = 2;

/**
 * The TechEmpower tables in a SQLite file through `bun:sqlite`: WAL mode (readers never wait for
 * the writer), every statement prepared once at open. Queries run synchronously on the calling
 * thread, so nothing waits for a connection and there is no pool to bound. The tables are created
 * and filled when missing.
 *
 * The queries of one request run in one transaction: a read transaction for `/queries`, one
 * write transaction (taken at once, `BEGIN IMMEDIATE`) for the reads and writes of `/updates`.
 * Each row is still its own query, as TechEmpower requires; what is saved is SQLite's file
 * locking around every statement outside a transaction (two `fcntl` calls, most of a one-row
 * query's time: 20 rows took 83 µs alone and 10 µs in one transaction on the bench machine).
 * The write transaction also keeps another process from changing a row between its read and its
 * write.
 *
 * No statement waits long for a lock on the event loop: when another process holds the write
 * lock past `busyTimeoutMs` the call throws `DatabaseBusyError` (no transaction is left open:
 * `transaction()` rolls back whatever it began), and the App tries again later on a timer.
 * Reads in WAL mode take no lock another connection holds, so they go on meanwhile.
 */
export class SqliteWorldDatabase implements WorldDatabase {
  readonly kind = "sqlite";
  /** Every query runs on the calling thread: the same queries, answered as values. */
  readonly synchronous: SqliteQueries;

  /** Opens (or creates) the file at `path`. */
  constructor(path: string) {
    this.synchronous = new SqliteQueries(path);
  }

  findWorld(id: number): Promise<World> {
    return Promise.resolve(this.synchronous.findWorld(id));
  }

  findRandomWorlds(count: number): Promise<World[]> {
    return Promise.resolve(this.synchronous.findRandomWorlds(count));
  }

  fortunes(): Promise<Fortune[]> {
    return Promise.resolve(this.synchronous.fortunes());
  }

  updateRandomWorlds(count: number): Promise<World[]> {
    return Promise.resolve(this.synchronous.updateRandomWorlds(count));
  }

  close(): Promise<void> {
    this.synchronous.close();
    return Promise.resolve();
  }
}

/** The statements of one SQLite file, prepared once, answering on the calling thread. */
export class SqliteQueries implements SynchronousWorldDatabase {
  readonly #database: Database;
  readonly #selectWorld: Statement<World, [number]>;
  readonly #selectFortunes: Statement<Fortune, []>;
  readonly #updateWorld: Statement<unknown, [number, number]>;
  readonly #readWorlds: WorldsTransaction;
  readonly #updateWorlds: WorldsTransaction;
  /** Another connection held the write lock at the last write: writes fail at once until one passes. */
  #lockHeldElsewhere = false;

  /** Opens (or creates) the file at `path`. */
  constructor(path: string) {
    this.#database = new Database(path, { create: true, strict: true });
    this.#database.run(`PRAGMA busy_timeout = ${openBusyTimeoutMs}`);
    this.#database.run("PRAGMA journal_mode = WAL");
    this.#database.run("PRAGMA synchronous = NORMAL");
    createTablesIfMissing(this.#database);
    this.#database.run(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    this.#selectWorld = this.#database.query<World, [number]>(
      "SELECT id, randomNumber FROM World WHERE id = ?",
    );
    this.#selectFortunes = this.#database.query<Fortune, []>("SELECT id, message FROM Fortune");
    this.#updateWorld = this.#database.query<unknown, [number, number]>(
      "UPDATE World SET randomNumber = ? WHERE id = ?",
    );
    this.#readWorlds = this.#database.transaction((count: number) => this.#randomWorlds(count));
    this.#updateWorlds = this.#database.transaction((count: number) => {
      const worlds = this.#randomWorlds(count);
      for (const world of worlds) {
        world.randomNumber = randomWorldNumber();
        this.#updateWorld.run(world.randomNumber, world.id);
      }
      return worlds;
    });
  }

  findWorld(id: number): World {
    try {
      return this.#findWorld(id);
    } catch (error) {
      throw busyAsDatabaseBusy(error);
    }
  }

  findRandomWorlds(count: number): World[] {
    try {
      return this.#readWorlds.deferred(count);
    } catch (error) {
      throw busyAsDatabaseBusy(error);
    }
  }

  fortunes(): Fortune[] {
    try {
      return this.#selectFortunes.all();
    } catch (error) {
      throw busyAsDatabaseBusy(error);
    }
  }

  /**
   * Throws `DatabaseBusyError` when another connection holds the write lock. While it does, the
   * next writes fail at once (busy_timeout 0) instead of each waiting `busyTimeoutMs` on the
   * event loop: a hundred requests retrying against a lock held for seconds would otherwise
   * stall the loop for as many waits.
   */
  updateRandomWorlds(count: number): World[] {
    let worlds: World[];
    try {
      worlds = this.#updateWorlds.immediate(count);
    } catch (error) {
      if (isBusy(error) && !this.#lockHeldElsewhere) {
        this.#lockHeldElsewhere = true;
        this.#database.run("PRAGMA busy_timeout = 0");
      }
      throw busyAsDatabaseBusy(error);
    }
    if (this.#lockHeldElsewhere) {
      this.#lockHeldElsewhere = false;
      this.#database.run(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    }
    return worlds;
  }

  /** Closes the file. */
  close(): void {
    this.#database.close();
  }

  #randomWorlds(count: number): World[] {
    const worlds = new Array<World>(count);
    for (let index = 0; index < count; index++) {
      worlds[index] = this.#findWorld(randomWorldNumber());
    }
    return worlds;
  }

  #findWorld(id: number): World {
    const world = this.#selectWorld.get(id);
    if (world === null) throw new Error(`World row ${id} is missing`);
    return world;
  }
}

/** SQLITE_BUSY or SQLITE_LOCKED, with any extended code (the primary code is the low byte). */
function isBusy(error: unknown): boolean {
  if (!(error instanceof SQLiteError)) return false;
  const primary = error.errno & 0xff;
  return primary === sqliteBusy || primary === sqliteLocked;
}

const sqliteBusy = 5;
const sqliteLocked = 6;

/** A busy or locked error as `DatabaseBusyError` (a 503 when no retry gets through); others as they are. */
function busyAsDatabaseBusy(error: unknown): unknown {
  if (!isBusy(error)) return error;
  return new DatabaseBusyError(`the SQLite file is locked (${(error as SQLiteError).code})`);
}

/**
 * Creates `World` (10,000 random rows) and `Fortune` (12 rows) when they are not there. The
 * transaction takes the write lock first (`BEGIN IMMEDIATE`): of several processes starting on one
 * file, one fills the tables and the others wait (busy_timeout), then find them full.
 */
function createTablesIfMissing(database: Database): void {
  database
    .transaction(() => {
      database.run(
        "CREATE TABLE IF NOT EXISTS World (id INTEGER PRIMARY KEY, randomNumber INTEGER NOT NULL)",
      );
      database.run(
        "CREATE TABLE IF NOT EXISTS Fortune (id INTEGER PRIMARY KEY, message TEXT NOT NULL)",
      );
      const worlds = database.query<{ count: number }, []>("SELECT count(*) AS count FROM World");
      if (worlds.get()!.count === 0) {
        const insert = database.query("INSERT INTO World (id, randomNumber) VALUES (?, ?)");
        for (let id = 1; id <= worldRowCount; id++) insert.run(id, randomWorldNumber());
      }
      const fortunes = database.query<{ count: number }, []>(
        "SELECT count(*) AS count FROM Fortune",
      );
      if (fortunes.get()!.count === 0) {
        const insert = database.query("INSERT INTO Fortune (id, message) VALUES (?, ?)");
        for (const row of fortuneRows) insert.run(row.id, row.message);
      }
    })
    .immediate();
}
