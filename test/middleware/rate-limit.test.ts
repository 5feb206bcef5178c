import { afterAll, beforeAll, expect, test } from "bun:test";
import { App, RedisConnection } from "corral";
import { ipv6Prefix56, RateLimitTable, RedisRateLimitStore, rateLimit } from "corral/middleware";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { storedRateLimitKey } from "../../src/middleware/rate-limit-key.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis[Symbol.asyncDispose]();
});

test("N requests pass, the N+1st from the same peer is a 429 with Retry-After and RateLimit headers", async () => {
  const app = new App({ shared: {} }).use(rateLimit({ limit: 3, windowMs: 60_000 }));
  app.get("/", (ctx) => ctx.response.text(200, "ok"));
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  const count = 4;
  client.send(
    Array.from({ length: count }, (_, index) => {
      const close = index === count - 1 ? "Connection: close\r\n" : "";
      return `GET / HTTP/1.1\r\nHost: h\r\n${close}\r\n`;
    }).join(""),
  );
  const responses = await client.responses(count);
  expect(
    responses.map((response) => [
      response.status,
      response.header("ratelimit-policy"),
      response.header("ratelimit"),
      response.header("retry-after"),
    ]),
  ).toEqual([
    [200, '"default";q=3;w=60', '"default";r=2;t=20', undefined],
    [200, '"default";q=3;w=60', '"default";r=1;t=40', undefined],
    [200, '"default";q=3;w=60', '"default";r=0;t=60', undefined],
    [429, '"default";q=3;w=60', '"default";r=0;t=60', "20"],
  ]);
  await app.stop();
});

test("the RateLimit seconds are whole despite the clock's fractions (an exact 20 s says 20)", async () => {
  // At this reading, (now + 20000) - now is 20000.00000000006 in floating point.
  const now = 521591.5036364942;
  expect(now + 20_000 - now).toBeGreaterThan(20_000);
  const store = new RateLimitTable({ capacity: 4, now: () => now });
  const app = new App({ shared: {} }).use(rateLimit({ limit: 3, windowMs: 60_000, store }));
  app.get("/", (ctx) => ctx.response.text(200, "ok"));
  const response = await app.request("/");
  expect(response.headers.get("ratelimit")).toBe('"default";r=2;t=20');
  await app.stop();
});

test("GCRA over a fixed table: quota spreads over the window; a full table evicts, counted", () => {
  let now = 1_000;
  const table = new RateLimitTable({ capacity: 4, now: () => now });
  const allowed = () => table.check("a", 2, 10_000).allowed;
  expect([allowed(), allowed(), allowed()]).toEqual([true, true, false]);
  now += 5_000;
  expect([allowed(), allowed()]).toEqual([true, false]);
  // Four keys fill the table; a fifth takes the slot whose state ends soonest.
  for (const key of ["b", "c", "d"]) table.check(key, 1, 60_000);
  expect(table.stats()).toEqual({ capacity: 4, evictions: 0 });
  table.check("e", 1, 60_000);
  expect(table.stats()).toEqual({ capacity: 4, evictions: 1 });
  // An attacker's million keys never grow the table.
  for (let index = 0; index < 10_000; index++) table.check(`attacker-${index}`, 1, 60_000);
  expect(table.stats().capacity).toBe(4);
  expect(() => new RateLimitTable({ capacity: 0 })).toThrow(RangeError);
});

test("keys over 64 characters are kept as digests: still counted apart and together, and a full table holds no 16 KiB keys", () => {
  const table = new RateLimitTable({ capacity: 1000 });
  const longKey = (index: number) => {
    // A flat string of its own (no rope over a shared part), as a header value would be.
    const bytes = new Uint8Array(16 * 1024).fill(0x6b);
    bytes.set(new TextEncoder().encode(String(index)));
    return new TextDecoder().decode(bytes);
  };
  const first = longKey(1);
  const countsOf = (key: string) => [1, 2, 3].map(() => table.check(key, 2, 60_000).allowed);
  const counted = {
    sameKey: countsOf(first),
    otherLongKey: countsOf(longKey(2)),
    // A short key that spells what a long key's digest is stored as names its own slot.
    digestLookalike: countsOf(storedRateLimitKey(longKey(3))),
    exactly64: countsOf("a".repeat(64)),
  };
  Bun.gc(true);
  const before = process.memoryUsage().heapUsed;
  for (let index = 10; index < 1010; index++) table.check(longKey(index), 2, 60_000);
  Bun.gc(true);
  const heldBytes = process.memoryUsage().heapUsed - before;
  expect({
    counted,
    lengths: ["a".repeat(64), "a".repeat(65), "\u0000a", ""].map(
      (key) => storedRateLimitKey(key).length,
    ),
    // 1000 keys of 16 KiB kept whole would be 16 MiB.
    heldUnder1MiB: heldBytes < 1024 * 1024,
  }).toEqual({
    counted: {
      sameKey: [true, true, false],
      otherLongKey: [true, true, false],
      digestLookalike: [true, true, false],
      exactly64: [true, true, false],
    },
    lengths: [64, 45, 45, 0],
    heldUnder1MiB: true,
  });
});

test("IPv6 peers count by their /56", () => {
  expect([
    ipv6Prefix56("2001:db8:12:34ff:1:2:3:4"),
    ipv6Prefix56("2001:db8:12:3400::1"),
    ipv6Prefix56("::1"),
    ipv6Prefix56("fe80::1%eth0"),
  ]).toEqual(["2001:db8:12:3400::/56", "2001:db8:12:3400::/56", "0:0:0:0::/56", "fe80:0:0:0::/56"]);
});

test("the Redis store shares one limit between two Apps (two processes' worth)", async () => {
  const connections = [
    await RedisConnection.open({ url: redis.url }),
    await RedisConnection.open({ url: redis.url }),
  ];
  const apps = connections.map((connection) => {
    const app = new App({ shared: {} }).use(
      rateLimit({
        limit: 3,
        key: (ctx) => ctx.request.header("x-user") ?? "anonymous",
        store: new RedisRateLimitStore(connection),
      }),
    );
    app.get("/", (ctx) => ctx.response.text(200, "ok"));
    return app;
  });
  const statuses = [];
  for (const index of [0, 1, 0, 1]) {
    const response = await apps[index]!.request("/", { headers: { "x-user": "ada" } });
    statuses.push([response.status, response.headers.get("retry-after")]);
  }
  const other = await apps[1]!.request("/", { headers: { "x-user": "bob" } });
  expect([...statuses, [other.status, other.headers.get("ratelimit")]]).toEqual([
    [200, null],
    [200, null],
    [200, null],
    [429, "20"],
    [200, '"default";r=2;t=20'],
  ]);
  for (const connection of connections) connection.close();
  await Promise.all(apps.map((app) => app.stop()));
});

test("Redis store: Redis out of memory (noeviction) is a 503 with Retry-After, not a 500", async () => {
  await using own = await startRedisServer();
  const connection = await RedisConnection.open({ url: own.url });
  const logged: string[] = [];
  const app = new App({
    shared: {},
    log: { error: (...values: unknown[]) => logged.push(values.map(String).join(" ")) },
  }).use(rateLimit({ limit: 3, store: new RedisRateLimitStore(connection) }));
  app.get("/", (ctx) => ctx.response.text(200, "ok"));
  try {
    // Below what Redis already uses: every write, the limit's script too, is refused with OOM.
    await connection.command("CONFIG", ["SET", "maxmemory-policy", "noeviction", "maxmemory", "1"]);
    const response = await app.request("/");
    expect({
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body: await response.text(),
      logged: logged.length,
    }).toEqual({
      status: 503,
      retryAfter: "1",
      body: "Service unavailable: the shared store is refusing commands\n",
      logged: 1,
    });
  } finally {
    connection.close();
    await app.stop();
  }
});

test("Redis store: a burst of exactly the limit passes with remaining limit-1 down to 0, whatever the limit and window; one more is refused", async () => {
  // The stored time kept 14 digits and the check had a 1e-6 ms slack: rounding errors of about
  // 1e-4 ms added up, and bursts of exactly 6, 7, 9, 15 or 18 got a 429 (and remaining one low).
  const connection = await RedisConnection.open({ url: redis.url });
  const store = new RedisRateLimitStore(connection, { keyPrefix: `burst:${Date.now()}:` });
  const outcomes: string[] = [];
  for (const [limit, windowMs] of [
    [6, 1000],
    [7, 1000],
    [9, 60_000],
    [15, 1000],
    [18, 1000],
    [19, 60_000],
  ] as const) {
    for (let trial = 0; trial < 5; trial++) {
      const key = `${limit}:${windowMs}:${trial}`;
      const burst = await Promise.all(
        Array.from({ length: limit + 1 }, () => store.check(key, limit, windowMs)),
      );
      const allowed = burst.filter((decision) => decision.allowed).length;
      const remaining = burst
        .filter((decision) => decision.allowed)
        .map((decision) => decision.remaining)
        .sort((a, b) => b - a);
      const expected = Array.from({ length: limit }, (_, index) => limit - 1 - index);
      if (allowed !== limit || remaining.join() !== expected.join()) {
        outcomes.push(`${key}: ${allowed} allowed, remaining ${remaining.join()}`);
      }
    }
  }
  expect(outcomes).toEqual([]);
  connection.close();
});
