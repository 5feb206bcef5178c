import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { PostgresWorldDatabase } from "./postgres-database.ts";
import { SqliteWorldDatabase } from "./sqlite-database.ts";
import type { WorldDatabase } from "./world-database.ts";

/** Where the processes of `--processes N` find the database `--db` named. */
export const databaseVariable = "CORRAL_TECHEMPOWER_DB";

const usage =
  "usage: bun run example techempower --port <0-65535> [--processes <1-1024>] " +
  "[--db FILE | --db postgres://user@host:port/database]";

/** The arguments with `--db X` (or `--db=X`) taken out, and X if given. */
export function takeDatabaseArgument(
  args: readonly string[],
): { readonly database: string | undefined; readonly rest: readonly string[] } | string {
  const rest: string[] = [];
  let database: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const argument = args[index]!;
    if (argument === "--db") database = args[++index] ?? "";
    else if (argument.startsWith("--db=")) database = argument.slice("--db=".length);
    else rest.push(argument);
  }
  if (database !== undefined && database.length === 0)
    return `--db needs a file or a URL\n${usage}`;
  if (
    database !== undefined &&
    /^[a-z][a-z0-9+.-]*:\/\//i.test(database) &&
    !isPostgresUrl(database)
  ) {
    return `invalid --db ${JSON.stringify(database)}: a URL must be postgres:// or postgresql://\n${usage}`;
  }
  return { database, rest };
}

function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\/./i.test(text);
}

/**
 * A SQLite file in a new temporary directory: the default when `--db` is absent. The directory
 * (the file and its WAL files) is removed when this process exits; the processes of
 * `--processes N` share it and are stopped before the one that made it exits.
 */
export function temporarySqlitePath(): string {
  const directory = mkdtempSync(`${tmpdir()}/corral-techempower-`);
  process.on("exit", () => rmSync(directory, { recursive: true, force: true }));
  return `${directory}/techempower.sqlite`;
}

/** Opens what `--db` named: PostgreSQL for a postgres:// URL, otherwise a SQLite file. */
export async function openDatabase(location: string): Promise<WorldDatabase> {
  if (isPostgresUrl(location)) return PostgresWorldDatabase.open(location);
  return new SqliteWorldDatabase(location);
}
