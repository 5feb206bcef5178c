import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { openDatabase } from "../../examples/techempower/database-argument.ts";
import type { WorldDatabase } from "../../examples/techempower/world-database.ts";

/**
 * The database every TechEmpower bench server opens, from `--db FILE | --db postgres://...` (a
 * temporary SQLite file without it): the example's own module, so that only the framework differs.
 */
export async function openBenchDatabase(
  argv: readonly string[] = Bun.argv,
): Promise<WorldDatabase> {
  const index = argv.indexOf("--db");
  const location =
    index >= 0 && argv[index + 1] !== undefined
      ? argv[index + 1]!
      : `${mkdtempSync(`${tmpdir()}/corral-techempower-`)}/techempower.sqlite`;
  return openDatabase(location);
}
