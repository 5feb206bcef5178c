import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { RedisConnection } from "../../src/redis/redis-connection.ts";
import { RedisUnavailableError } from "../../src/redis/redis-unavailable-error.ts";
import { RedisSessionStore } from "../../src/sessions/redis-session-store.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";

let server: RedisServer;
let probe: RedisClient;
beforeAll(async () => {
  server = await startRedisServer();
  probe = new RedisClient(server.url);
  await probe.connect();
});
afterAll(async () => {
  probe.close();
  await server[Symbol.asyncDispose]();
});

/** Two instances: each its own connection, both on one Redis and one prefix. */
async function twoInstances(prefix: string, lifetimeMs = 60_000) {
  const connections = [
    await RedisConnection.open({ url: server.url }),
    await RedisConnection.open({ url: server.url }),
  ];
  const [a, b] = connections.map(
    (redis) => new RedisSessionStore<{ user: string }>({ redis, prefix, capacity: 10, lifetimeMs }),
  ) as [RedisSessionStore<{ user: string }>, RedisSessionStore<{ user: string }>];
  return {
    a,
    b,
    [Symbol.dispose]() {
      for (const connection of connections) connection.close();
    },
  };
}

test("a login on one instance is valid on another; a logout there ends it on both at once", async () => {
  using instances = await twoInstances("shared1:");
  const { token } = await instances.a.create({ user: "ada" });
  const seenOnB = (await instances.b.get(token))?.data;
  const revokedOnB = await instances.b.revoke(token);
  expect({
    seenOnB,
    revokedOnB,
    onA: await instances.a.get(token),
    onB: await instances.b.get(token),
  }).toEqual({ seenOnB: { user: "ada" }, revokedOnB: true, onA: undefined, onB: undefined });
});

test("the Redis expiry is set once at creation: reading a session never moves it", async () => {
  using instances = await twoInstances("fixed:");
  const { token } = await instances.a.create({ user: "ada" });
  const [key] = (await probe.send("KEYS", ["fixed:s:*"])) as string[];
  const before = await probe.send("PEXPIRETIME", [key!]);
  for (let read = 0; read < 5; read++) await instances.b.get(token);
  const after = await probe.send("PEXPIRETIME", [key!]);
  expect({
    keyHoldsToken: key!.includes(token),
    positive: before > 0,
    same: after === before,
  }).toEqual({
    keyHoldsToken: false,
    positive: true,
    same: true,
  });
});

test("an expiry is seen by the other instance too", async () => {
  using instances = await twoInstances("expiry:", 200);
  const { token } = await instances.a.create({ user: "ada" });
  const valid = (await instances.b.get(token))?.data;
  while ((await instances.a.get(token)) !== undefined) await Bun.sleep(5);
  expect({ valid, onB: await instances.b.get(token) }).toEqual({
    valid: { user: "ada" },
    onB: undefined,
  });
});

test("capacity is shared: two instances together hold at most capacity sessions", async () => {
  using instances = await twoInstances("capacity:");
  const outcomes: string[] = [];
  for (let n = 0; n < 12; n++) {
    const store = n % 2 === 0 ? instances.a : instances.b;
    outcomes.push(
      await store.create({ user: `u${n}` }).then(
        () => "created",
        (error: Error) => error.name,
      ),
    );
  }
  expect(outcomes).toEqual([
    ...Array(10).fill("created"),
    "SessionStoreFullError",
    "SessionStoreFullError",
  ]);
});

test("a cap per owner holds across instances: exactly the cap fits, one more ends the oldest", async () => {
  const connections = [
    await RedisConnection.open({ url: server.url }),
    await RedisConnection.open({ url: server.url }),
  ];
  const perOwner = { ownerOf: (data: { user: string }) => data.user, maxSessions: 2 };
  const [a, b] = connections.map(
    (redis) =>
      new RedisSessionStore<{ user: string }>({
        redis,
        prefix: "owners:",
        capacity: 10,
        lifetimeMs: 60_000,
        perOwner,
      }),
  ) as [RedisSessionStore<{ user: string }>, RedisSessionStore<{ user: string }>];
  const first = await a.create({ user: "ada" });
  const second = await b.create({ user: "ada" });
  const grace = await b.create({ user: "grace" });
  const atCap = [await a.get(first.token), await a.get(second.token)].map((s) => s?.data.user);
  const third = await b.create({ user: "ada" }); // one over on the other instance
  // A logged-out session no longer counts: after a logout of the newest, one more fits and the
  // oldest stays.
  await a.revoke(third.token);
  const fourth = await a.create({ user: "ada" });
  const valid = async (token: string) => (await b.get(token)) !== undefined;
  expect({
    atCap,
    first: await valid(first.token),
    second: await valid(second.token),
    third: await valid(third.token),
    fourth: await valid(fourth.token),
    grace: await valid(grace.token),
    displaced: [a.displaced, b.displaced],
  }).toEqual({
    atCap: ["ada", "ada"],
    first: false,
    second: true,
    third: false,
    fourth: true,
    grace: true,
    displaced: [0, 1],
  });
  for (const connection of connections) connection.close();
});

test("Redis down: session checks fail closed with a 503, and come back once it is up", async () => {
  await using own = await startRedisServer();
  const redis = await RedisConnection.open({ url: own.url });
  const sessions = new RedisSessionStore<string>({ redis, capacity: 10, lifetimeMs: 60_000 });
  const { token } = await sessions.create("ada");
  await own.kill();
  const down = await sessions.get(token).catch((error: unknown) => error);
  await own.restart();
  while (!redis.stats().connected) await Bun.sleep(5);
  // A fresh server is empty (no persistence): the session is gone, and a new one works.
  const gone = await sessions.get(token);
  const fresh = await sessions.create("grace");
  expect({
    down: down instanceof RedisUnavailableError && [down.status, down.headers],
    gone,
    fresh: (await sessions.get(fresh.token))?.data,
    reconnects: redis.stats().reconnects,
  }).toEqual({
    down: [503, { "Retry-After": "1" }],
    gone: undefined,
    fresh: "grace",
    reconnects: 1,
  });
  redis.close();
});
