import { SQL } from "bun";
import {
  type Fortune,
  fortuneRows,
  randomWorldNumber,
  type World,
  worldRowCount,
} from "./seed-data.ts";
import { WaitBound } from "./wait-bound.ts";
import { DatabaseUnavailableError, type WorldDatabase } from "./world-database.ts";

/** The bounds of a `PostgresWorldDatabase`, each with a default sized for one server process. */
export interface PostgresOptions {
  /** Pooled connections (`Bun.sql`'s `max`); default 8. */
  readonly poolSize?: number;
  /** Requests using the pool at once (their queries pipeline on it); default 2 x `poolSize`. */
  readonly maxActiveRequests?: number;
  /** Requests waiting for their turn past that; more get 503 at once. Default 256. */
  readonly maxWaitingRequests?: number;
  /** How long a request may wait for its turn; default 1000 ms, then 503. */
  readonly maxWaitMs?: number;
  /** PostgreSQL's `statement_timeout` for every query: a slower query is a 503. Default 5000. */
  readonly statementTimeoutMs?: number;
  /** Seconds to wait for a connection to open; default 2. */
  readonly connectTimeoutSeconds?: number;
}

/** SQLSTATE classes that say "the database is not there for you now" rather than "your bug". */
const unavailableClasses = ["08", "53", "57"];
/** `deadlock_detected`: two bulk updates locked the same rows in another order; try again. */
const deadlockDetected = "40P01";
const updateAttempts = 3;

/**
 * The TechEmpower tables in PostgreSQL through Bun's built-in `SQL` client: a bounded pool of
 * connections with named prepared statements (Bun's default), and a `WaitBound` in front of it so
 * that requests wait for the database in bounded number and time. Losing the database is a
 * `DatabaseUnavailableError` (503); the pool reconnects on the next query, so the server recovers
 * without a restart.
 */
export class PostgresWorldDatabase implements WorldDatabase {
  readonly kind = "postgres";
  /** Answers come from across the network, later: every query is awaited. */
  readonly synchronous = undefined;
  readonly #sql: SQL;
  readonly bound: WaitBound;

  private constructor(sql: SQL, bound: WaitBound) {
    this.#sql = sql;
    this.bound = bound;
  }

  /** Connects to `url`, creating and filling the tables when they are missing. */
  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresWorldDatabase> {
    const poolSize = options.poolSize ?? 8;
    const sql = new SQL({
      url,
      max: poolSize,
      connectionTimeout: options.connectTimeoutSeconds ?? 2,
      connection: { statement_timeout: options.statementTimeoutMs ?? 5000 },
    });
    const bound = new WaitBound({
      maxActive: options.maxActiveRequests ?? 2 * poolSize,
      maxWaiting: options.maxWaitingRequests ?? 256,
      maxWaitMs: options.maxWaitMs ?? 1000,
    });
    try {
      await createTablesIfMissing(sql);
    } catch (error) {
      await sql.close({ timeout: 0 });
      throw error;
    }
    return new PostgresWorldDatabase(sql, bound);
  }

  findWorld(id: number): Promise<World> {
    return this.#use(() => this.#findWorld(id));
  }

  findRandomWorlds(count: number): Promise<World[]> {
    return this.#use(() => this.#findRandom(count));
  }

  fortunes(): Promise<Fortune[]> {
    return this.#use(async () => [
      ...(await this.#sql<Fortune[]>`SELECT id, message FROM fortune`),
    ]);
  }

  updateRandomWorlds(count: number): Promise<World[]> {
    return this.#use(async () => {
      const worlds = await this.#findRandom(count);
      // The same id may be drawn twice: the last new number wins, and every copy shows it.
      const numbers = new Map<number, number>();
      for (const world of worlds) numbers.set(world.id, randomWorldNumber());
      for (const world of worlds) world.randomNumber = numbers.get(world.id)!;
      // One bulk statement, rows in id order so that concurrent updates lock them alike.
      const ids = [...numbers.keys()].sort((a, b) => a - b);
      const idArray = `{${ids.join(",")}}`;
      const numberArray = `{${ids.map((id) => numbers.get(id)).join(",")}}`;
      for (let attempt = 1; ; attempt++) {
        try {
          await this.#sql`UPDATE world SET randomnumber = changed.number
            FROM (SELECT unnest(${idArray}::int[]) AS id, unnest(${numberArray}::int[]) AS number) AS changed
            WHERE world.id = changed.id`;
          return worlds;
        } catch (error) {
          if (attempt >= updateAttempts || sqlState(error) !== deadlockDetected) throw error;
        }
      }
    });
  }

  async close(): Promise<void> {
    await this.#sql.close({ timeout: 1 });
  }

  async #findWorld(id: number): Promise<World> {
    const rows = await this.#sql<{ id: number; randomnumber: number }[]>`
      SELECT id, randomnumber FROM world WHERE id = ${id}`;
    const row = rows[0];
    if (row === undefined) throw new Error(`World row ${id} is missing`);
    return { id: row.id, randomNumber: row.randomnumber };
  }

  #findRandom(count: number): Promise<World[]> {
    // Each row is its own query; they are sent together and pipeline on the pooled connections.
    const reads = new Array<Promise<World>>(count);
    for (let index = 0; index < count; index++) reads[index] = this.#findWorld(randomWorldNumber());
    return Promise.all(reads);
  }

  /** Runs `work` within the wait bound; a lost or stalled database becomes a 503 error. */
  async #use<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await this.bound.run(work);
    } catch (error) {
      if (isUnavailable(error)) {
        throw new DatabaseUnavailableError(`the database is unavailable: ${describe(error)}`, {
          cause: error,
        });
      }
      throw error;
    }
  }
}

function sqlState(error: unknown): string | undefined {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return typeof errno === "string" ? errno : undefined;
}

/** Connection failures (Bun's `ERR_POSTGRES_CONNECTION_*`, timeouts) and SQLSTATE 08, 53, 57. */
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof SQL.SQLError)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && /^ERR_POSTGRES_(CONNECTION|.*TIMEOUT)/.test(code)) return true;
  const state = sqlState(error);
  return state !== undefined && unavailableClasses.includes(state.slice(0, 2));
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" ? `${code}: ${message}` : message;
}

/** Creates `world` (10,000 random rows) and `fortune` (12 rows) when they are not there. */
async function createTablesIfMissing(sql: SQL): Promise<void> {
  await sql.begin(async (transaction) => {
    // Two processes starting at once must not both fill the tables.
    await transaction`SELECT pg_advisory_xact_lock(23)`;
    await transaction`CREATE TABLE IF NOT EXISTS world (
      id integer PRIMARY KEY, randomnumber integer NOT NULL DEFAULT 0)`;
    await transaction`CREATE TABLE IF NOT EXISTS fortune (
      id integer PRIMARY KEY, message varchar(2048) NOT NULL)`;
    const [worlds] = await transaction`SELECT count(*)::int AS count FROM world`;
    if (worlds.count === 0) {
      await transaction`INSERT INTO world (id, randomnumber)
        SELECT id, 1 + floor(random() * ${worldRowCount})::int FROM generate_series(1, ${worldRowCount}) AS id`;
    }
    const [fortunes] = await transaction`SELECT count(*)::int AS count FROM fortune`;
    if (fortunes.count === 0) {
      for (const row of fortuneRows) {
        await transaction`INSERT INTO fortune (id, message) VALUES (${row.id}, ${row.message})`;
      }
    }
  });
}
