import { afterAll, beforeAll, expect, test } from "bun:test";
import { App } from "../../src/app.ts";
import { RedisConnection } from "../../src/redis/redis-connection.ts";
import type { RedisStats } from "../../src/redis/redis-stats.ts";
import { RedisSubscriber } from "../../src/redis/redis-subscriber.ts";
import { RedisUnavailableError } from "../../src/redis/redis-unavailable-error.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server[Symbol.asyncDispose]());

const quiet = {
  connections: 1,
  pendingCommands: 0,
  rejectedBusy: 0,
  timeouts: 0,
  refusedByRedis: 0,
  subscribers: 1,
};

async function redisStatsWhen(app: App<object>, done: (stats: RedisStats) => boolean) {
  for (;;) {
    const stats = app.stats().redis;
    if (stats !== undefined && done(stats)) return stats;
    await Bun.sleep(10);
  }
}

test("an App that includes no Redis connection has no redis section in stats()", () => {
  const app = new App({ shared: {} });
  expect("redis" in app.stats()).toBe(false);
});

test("Redis killed and restarted: the App's stats() show it away, then one reconnect of each connection", async () => {
  const app = new App({ shared: {} });
  const redis = await RedisConnection.open({ url: server.url });
  const subscriber = await RedisSubscriber.open({ url: server.url });
  app.includeRedisStats(redis);
  app.includeRedisStats(subscriber);
  // The same connection twice still counts once.
  app.includeRedisStats(redis);
  try {
    expect(app.stats().redis).toEqual({
      ...quiet,
      connected: 1,
      reconnects: 0,
      rejectedDisconnected: 0,
      subscriberReconnects: 0,
    });

    await server.kill();
    await redisStatsWhen(app, (stats) => stats.connected === 0);
    const error = await redis.command("GET", ["key"]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedisUnavailableError);

    await server.restart();
    const back = await redisStatsWhen(
      app,
      (stats) =>
        stats.connected === 1 && stats.reconnects === 1 && stats.subscriberReconnects === 1,
    );
    expect(back).toEqual({
      ...quiet,
      connected: 1,
      reconnects: 1,
      rejectedDisconnected: 1,
      subscriberReconnects: 1,
    });
  } finally {
    redis.close();
    subscriber.close();
  }
});

test("includeRedisStats with anything but a RedisConnection or RedisSubscriber is a TypeError", () => {
  const app = new App({ shared: {} });
  expect(() => app.includeRedisStats({ stats: () => ({}) } as unknown as RedisConnection)).toThrow(
    /includeRedisStats takes a RedisConnection or a RedisSubscriber/,
  );
});
