import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import {
  type PostgresServer,
  startPostgresServer,
} from "../../bench/techempower/postgres-server.ts";
import { RawClient, type WireResponse } from "../../engine/test/support/raw-client.ts";
import { PostgresWorldDatabase } from "../../examples/techempower/postgres-database.ts";
import { createTechEmpowerApp } from "../../examples/techempower/techempower-app.ts";
import { runSideClient } from "./support/side-client.ts";

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgresServer();
  // The example creates and fills the tables the first time it opens the database.
  await (await PostgresWorldDatabase.open(postgres.url)).close();
}, 30_000);
afterAll(async () => {
  await postgres?.[Symbol.asyncDispose]();
});

/** The example's App on PostgreSQL with a pool of 2 connections, on a free port. */
async function startApp() {
  const database = await PostgresWorldDatabase.open(postgres.url, { poolSize: 2 });
  const logged: unknown[][] = [];
  const app = createTechEmpowerApp(database, {
    log: { error: (...values) => logged.push(values) },
  });
  const server = app.listen({ port: 0, log: null });
  return {
    port: server.port,
    database,
    logged,
    stats: () => server.stats(),
    async [Symbol.asyncDispose]() {
      await app.stop({ graceMs: 100 });
      await database.close();
    },
  };
}

/** Sends `GET target` on `count` connections at once; resolves with every answer. */
async function flood(port: number, target: string, count: number): Promise<WireResponse[]> {
  const clients = await Promise.all(Array.from({ length: count }, () => RawClient.connect(port)));
  for (const client of clients) client.send(`GET ${target} HTTP/1.1\r\nHost: flood\r\n\r\n`);
  try {
    return await Promise.all(clients.map((client) => client.response(15_000)));
  } finally {
    for (const client of clients) client.destroy();
  }
}

/** The distinct (status, Retry-After) pairs among `answers`, with their counts. */
function tally(answers: readonly WireResponse[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = `${answer.status} retry-after=${answer.header("retry-after") ?? "-"}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe("a slow database (PostgreSQL, a pool of 2, 256 clients)", () => {
  test("other routes are served within 1 s; requests past the bounds get 503 with Retry-After", async () => {
    await using app = await startApp();
    // Make the database slow for /db: a transaction of the test holds `world` locked for 2.5 s.
    const locker = new SQL({ url: postgres.url, max: 1 });
    const { promise: locked, resolve: lockTaken } = Promise.withResolvers<void>();
    const lockHeld = locker.begin(async (transaction) => {
      await transaction`LOCK TABLE world IN ACCESS EXCLUSIVE MODE`;
      lockTaken();
      await Bun.sleep(2500);
    });
    await locked;
    const answers = flood(app.port, "/db", 256);
    const side = await runSideClient(app.port, "/json", answers);
    await lockHeld;
    await locker.close();
    const counts = tally(await answers);
    const served = counts["200 retry-after=-"] ?? 0;
    const refused = counts["503 retry-after=1"] ?? 0;
    expect({
      sideAllOk: side.statuses.length > 10 && side.statuses.every((status) => status === 200),
      sideWithinOneSecond: side.worstMs < 1000,
      everyFloodAnswerIs200Or503WithRetryAfter: served + refused === 256,
      // 4 requests at once use the 2 connections; once the lock goes they are answered.
      someServed: served >= 4,
      refusedCountedByTheBound: refused === app.database.bound.refused,
      nothingLeftWaiting: app.database.bound.waiting + app.database.bound.active,
    }).toEqual({
      sideAllOk: true,
      sideWithinOneSecond: true,
      everyFloodAnswerIs200Or503WithRetryAfter: true,
      someServed: true,
      refusedCountedByTheBound: true,
      nothingLeftWaiting: 0,
    });
    expect(refused).toBeGreaterThan(0);
  });

  test("a database that goes away gives 503 with Retry-After, and comes back without a restart", async () => {
    await using app = await startApp();
    const get = async (target: string) => {
      using client = await RawClient.connect(app.port);
      client.send(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      const answer = await client.response(10_000);
      return `${answer.status} retry-after=${answer.header("retry-after") ?? "-"}`;
    };
    const before = [await get("/db"), await get("/fortunes")];
    await postgres.stop();
    const gone = [
      await get("/db"),
      await get("/queries?queries=3"),
      await get("/fortunes"),
      await get("/json"),
    ];
    await postgres.restart();
    const back = [await get("/db"), await get("/updates?queries=2"), await get("/fortunes")];
    expect({ before, gone, back }).toEqual({
      before: ["200 retry-after=-", "200 retry-after=-"],
      gone: ["503 retry-after=1", "503 retry-after=1", "503 retry-after=1", "200 retry-after=-"],
      back: ["200 retry-after=-", "200 retry-after=-", "200 retry-after=-"],
    });
    // Each 503 was logged by the App (a 5xx after an error), naming the database's state.
    expect(app.logged.length).toBe(3);
    expect(String(app.logged[0]![1])).toContain("the database is unavailable");
  });
});
