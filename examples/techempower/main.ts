// `bun run example techempower --port <port> [--db FILE | --db postgres://...]`: TechEmpower's six
// tests on one App, on SQLite (a temporary file by default) or PostgreSQL.
import { serveExample } from "../shared/serve-example.ts";
import {
  databaseVariable,
  openDatabase,
  takeDatabaseArgument,
  temporarySqlitePath,
} from "./database-argument.ts";
import { createTechEmpowerApp } from "./techempower-app.ts";

/**
 * Takes `--db` out of the arguments and leaves the database in the environment, where every
 * process of `--processes N` finds it (they inherit it). Without `--db`: a temporary SQLite file.
 */
export function prepare(args: readonly string[]): readonly string[] {
  const parsed = takeDatabaseArgument(args);
  if (typeof parsed === "string") {
    console.error(parsed);
    process.exit(2);
  }
  process.env[databaseVariable] = parsed.database ?? temporarySqlitePath();
  return parsed.rest;
}

/** Opens the database (creating the tables when missing) and makes the App. */
async function createApp() {
  const location = process.env[databaseVariable] ?? temporarySqlitePath();
  try {
    return createTechEmpowerApp(await openDatabase(location));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    console.error(`corral techempower: cannot open the database ${location}: ${detail}`);
    process.exit(1);
  }
}
export default createApp;

/** Where the printed URL opens: the example has no page at `/`. */
export const startPath = "/json";

if (import.meta.main) {
  const args = prepare(process.argv.slice(2));
  await serveExample("techempower", import.meta.path, createApp, args, startPath);
}
