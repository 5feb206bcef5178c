import { Database } from "bun:sqlite";
import { SQL } from "bun";
import type { Fortune } from "../../examples/techempower/seed-data.ts";

/**
 * The verifier's own look into the database a server uses, beside the server: to read `World`
 * and `Fortune` as they are, and to change them under the server (the anti-cheat: a server that
 * cached rows, or the fortunes, answers with stale data and fails).
 */
export interface DatabaseInspector {
  /** Every World row: id -> randomNumber. */
  worlds(): Promise<Map<number, number>>;
  /** Gives every World row a new random randomNumber (1..10000). */
  rewriteWorlds(): Promise<void>;
  fortunes(): Promise<Fortune[]>;
  insertFortune(fortune: Fortune): Promise<void>;
  deleteFortune(id: number): Promise<void>;
  close(): Promise<void>;
}

/** An inspector for a SQLite file (WAL: it reads and writes beside the server's connection). */
export function inspectSqlite(path: string): DatabaseInspector {
  const database = new Database(path, { strict: true });
  database.run("PRAGMA busy_timeout = 5000");
  return {
    async worlds() {
      const rows = database
        .query<{ id: number; randomNumber: number }, []>("SELECT id, randomNumber FROM World")
        .all();
      return new Map(rows.map((row) => [row.id, row.randomNumber]));
    },
    async rewriteWorlds() {
      database.run("UPDATE World SET randomNumber = 1 + abs(random() % 10000)");
    },
    async fortunes() {
      return database.query<Fortune, []>("SELECT id, message FROM Fortune").all();
    },
    async insertFortune(fortune) {
      database
        .query("INSERT INTO Fortune (id, message) VALUES (?, ?)")
        .run(fortune.id, fortune.message);
    },
    async deleteFortune(id) {
      database.query("DELETE FROM Fortune WHERE id = ?").run(id);
    },
    async close() {
      database.close();
    },
  };
}

/** An inspector for a PostgreSQL database (one connection of its own). */
export function inspectPostgres(url: string): DatabaseInspector {
  const sql = new SQL({ url, max: 1 });
  return {
    async worlds() {
      const rows = await sql<
        { id: number; randomnumber: number }[]
      >`SELECT id, randomnumber FROM world`;
      return new Map(rows.map((row) => [row.id, row.randomnumber]));
    },
    async rewriteWorlds() {
      await sql`UPDATE world SET randomnumber = 1 + floor(random() * 10000)::int`;
    },
    async fortunes() {
      return [...(await sql<Fortune[]>`SELECT id, message FROM fortune`)];
    },
    async insertFortune(fortune) {
      await sql`INSERT INTO fortune (id, message) VALUES (${fortune.id}, ${fortune.message})`;
    },
    async deleteFortune(id) {
      await sql`DELETE FROM fortune WHERE id = ${id}`;
    },
    async close() {
      await sql.close({ timeout: 1 });
    },
  };
}

/** The inspector for what `--db` names: a postgres:// URL or a SQLite file. */
export function inspectDatabase(location: string): DatabaseInspector {
  return /^postgres(ql)?:\/\//i.test(location)
    ? inspectPostgres(location)
    : inspectSqlite(location);
}
