import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { SqliteWorldDatabase } from "../../examples/techempower/sqlite-database.ts";
import { createTechEmpowerApp } from "../../examples/techempower/techempower-app.ts";
import { runSideClient } from "./support/side-client.ts";

/** The example's App on a new SQLite file, on a free port. */
function startApp(path: string) {
  const database = new SqliteWorldDatabase(path);
  const logged: unknown[][] = [];
  const app = createTechEmpowerApp(database, {
    log: { error: (...values) => logged.push(values) },
  });
  const server = app.listen({ port: 0, log: null });
  return {
    port: server.port,
    logged,
    async [Symbol.asyncDispose]() {
      await app.stop({ graceMs: 100 });
      await database.close();
    },
  };
}

/**
 * Another process holding the file's write lock (`BEGIN IMMEDIATE`) until a line on its stdin,
 * or 6 s at most; resolves once the lock is taken.
 */
async function holdWriteLock(path: string) {
  const script = `
    const { Database } = require("bun:sqlite");
    const database = new Database(${JSON.stringify(path)});
    database.run("BEGIN IMMEDIATE");
    console.log("locked");
    const release = () => { database.run("COMMIT"); database.close(); process.exit(0); };
    setTimeout(release, 6000);
    process.stdin.once("data", release);`;
  const holder = Bun.spawn(["bun", "-e", script], { stdin: "pipe", stdout: "pipe" });
  const { value } = await holder.stdout.getReader().read();
  expect(new TextDecoder().decode(value)).toBe("locked\n");
  return {
    async release() {
      holder.stdin.write("release\n");
      await holder.stdin.end();
      return holder.exited;
    },
    [Symbol.dispose]() {
      if (holder.exitCode === null) process.kill(holder.pid);
    },
  };
}

/** `GET target` on its own connection: status, Retry-After and the body text. */
async function get(port: number, target: string) {
  using client = await RawClient.connect(port);
  client.send(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  const answer = await client.response(10_000);
  return { status: answer.status, retryAfter: answer.header("retry-after"), body: answer.text };
}

/** "under 200" for a wait under 200 ms, the wait itself otherwise (to show it when it fails). */
function within200Ms(milliseconds: number): number | string {
  return milliseconds < 200 ? "under 200" : Math.round(milliseconds);
}

test("another process holding the SQLite write lock: /updates gets 503 with Retry-After, other routes stay prompt", async () => {
  const directory = mkdtempSync(`${tmpdir()}/corral-sqlite-lock-`);
  try {
    await using app = startApp(`${directory}/world.sqlite`);
    using holder = await holdWriteLock(`${directory}/world.sqlite`);
    // Two /updates in a row while the lock is held, clients on /plaintext and /db beside them.
    const updates = (async () => [
      await get(app.port, "/updates?queries=2"),
      await get(app.port, "/updates?queries=2"),
    ])();
    const [plaintext, db, locked] = await Promise.all([
      runSideClient(app.port, "/plaintext", updates, 50, 2000),
      runSideClient(app.port, "/db", updates, 50, 2000),
      updates,
    ]);
    // A read in WAL mode needs no write lock: /queries is answered while the lock is held.
    const queries = await get(app.port, "/queries?queries=3");
    expect(await holder.release()).toBe(0);
    // Nothing was left half-open: the next /updates writes its rows.
    const after = await get(app.port, "/updates?queries=2");
    expect({
      locked: locked.map(({ status, retryAfter }) => `${status} retry-after=${retryAfter}`),
      plaintext: { statuses: new Set(plaintext.statuses), worstMs: within200Ms(plaintext.worstMs) },
      db: { statuses: new Set(db.statuses), worstMs: within200Ms(db.worstMs) },
      queries: `${queries.status} rows=${(JSON.parse(queries.body) as unknown[]).length}`,
      after: `${after.status} rows=${(JSON.parse(after.body) as unknown[]).length}`,
      logged: app.logged.map((values) => String(values[1])),
    }).toEqual({
      locked: ["503 retry-after=1", "503 retry-after=1"],
      plaintext: { statuses: new Set([200]), worstMs: "under 200" },
      db: { statuses: new Set([200]), worstMs: "under 200" },
      queries: "200 rows=3",
      after: "200 rows=2",
      logged: [
        "DatabaseBusyError: the SQLite file is locked (SQLITE_BUSY)",
        "DatabaseBusyError: the SQLite file is locked (SQLITE_BUSY)",
      ],
    });
    // Each side client got several answers during the lock (about a second).
    expect(Math.min(plaintext.statuses.length, db.statuses.length)).toBeGreaterThan(5);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}, 15_000);
