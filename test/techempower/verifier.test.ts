import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { verifyTechEmpower } from "../../bench/techempower/verifier.ts";
import { inspectSqlite } from "../../bench/techempower/verifier-database.ts";
import { type Cheat, startCheatingServer } from "./support/cheating-server.ts";

/** Verifies one cheating server on its own SQLite file: the messages of its failures. */
async function failuresOf(cheat: Cheat): Promise<string[]> {
  const directory = mkdtempSync(`${tmpdir()}/corral-verifier-`);
  try {
    await using server = await startCheatingServer(`${directory}/world.sqlite`, cheat);
    const inspector = inspectSqlite(`${directory}/world.sqlite`);
    try {
      const report = await verifyTechEmpower(server.port, inspector);
      return report.failures.map(
        (problem) => `${new URL(problem.url.split(" ")[0]!).pathname} ${problem.message}`,
      );
    } finally {
      await inspector.close();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe("the TechEmpower verifier", () => {
  test("passes an honest server and fails each cheat with what it did", async () => {
    const cheats: Cheat[] = [
      "honest",
      "cachedRows",
      "unescapedFortunes",
      "cachedFortunes",
      "updatesNotPersisted",
      "frozenDate",
      "noClamp",
      "noServerHeader",
    ];
    const results = await Promise.all(cheats.map((cheat) => failuresOf(cheat)));
    const found = Object.fromEntries(cheats.map((cheat, index) => [cheat, results[index]!]));
    // The first failure of each kind is enough to name the cheat; the honest server has none.
    const has = (cheat: Cheat, pattern: RegExp) => found[cheat]!.some((line) => pattern.test(line));
    expect({
      honest: found.honest,
      cachedRows: has(
        "cachedRows",
        /^\/(db|queries) World \d+: answered randomNumber \d+, the database has \d+$/,
      ),
      unescapedFortunes: has("unescapedFortunes", /^\/fortunes the table differs/),
      cachedFortunes: has("cachedFortunes", /^\/fortunes the table differs/),
      updatesNotPersisted: has("updatesNotPersisted", /^\/updates only 0 World rows changed/),
      frozenDate: has("frozenDate", /Date (did not change|".*" is not now)/),
      noClamp: has("noClamp", /^\/queries array of (0|501) Worlds, expected (1|500)$/),
      noServerHeader: has("noServerHeader", /^\/json required header missing: Server$/),
    }).toEqual({
      honest: [],
      cachedRows: true,
      unescapedFortunes: true,
      cachedFortunes: true,
      updatesNotPersisted: true,
      frozenDate: true,
      noClamp: true,
      noServerHeader: true,
    });
  });
});
