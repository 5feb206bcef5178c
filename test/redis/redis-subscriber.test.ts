import { expect, test } from "bun:test";
import { RedisClient } from "bun";
import { RedisSubscriber } from "../../src/redis/redis-subscriber.ts";
import { RedisUnavailableError } from "../../src/redis/redis-unavailable-error.ts";
import { startRedisServer } from "../support/redis-server.ts";

/** Calls of one listener: each message, and `"(reconnected)"` for a call without one. */
function recorder() {
  const calls: string[] = [];
  return {
    calls,
    listener: (message?: string) => calls.push(message ?? "(reconnected)"),
    async until(done: () => boolean): Promise<void> {
      const deadline = Date.now() + 5000;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`gave up after ${JSON.stringify(calls)}`);
        await Bun.sleep(5);
      }
    },
  };
}

/** A fresh command client on `url` (`await using` closes it). */
async function client(url: string) {
  const redis = new RedisClient(url);
  await redis.connect();
  return Object.assign(redis, { [Symbol.dispose]: () => redis.close() });
}

test("after each of three Redis restarts a message reaches its listener once, and the listener is called once to re-read", async () => {
  await using server = await startRedisServer();
  const subscriber = await RedisSubscriber.open({ url: server.url });
  const jobs = recorder();
  const rooms = recorder();
  await subscriber.subscribe("jobs", jobs.listener);
  await subscriber.subscribe("rooms", rooms.listener);
  const copies: number[][] = [];
  try {
    for (let restart = 1; restart <= 3; restart++) {
      await server.restart();
      // The re-read call comes once the subscriptions are back on the new server.
      await jobs.until(
        () => jobs.calls.filter((call) => call === "(reconnected)").length === restart,
      );
      await rooms.until(
        () => rooms.calls.filter((call) => call === "(reconnected)").length === restart,
      );
      using publisher = await client(server.url);
      for (const channel of ["jobs", "rooms"]) {
        await publisher.send("PUBLISH", [channel, `m${restart}`]);
        // Messages on one connection come in order: all copies of m<n> arrive before end<n>.
        await publisher.send("PUBLISH", [channel, `end${restart}`]);
      }
      await jobs.until(() => jobs.calls.includes(`end${restart}`));
      await rooms.until(() => rooms.calls.includes(`end${restart}`));
      copies.push(
        [jobs, rooms].map(({ calls }) => calls.filter((call) => call === `m${restart}`).length),
      );
    }
    expect({ copies, reconnects: subscriber.reconnects }).toEqual({
      copies: [
        [1, 1],
        [1, 1],
        [1, 1],
      ],
      reconnects: 3,
    });
  } finally {
    subscriber.close();
  }
});

test("a subscribe while Redis is down is a RedisUnavailableError, and the channel can be subscribed once Redis is back", async () => {
  await using server = await startRedisServer();
  const subscriber = await RedisSubscriber.open({ url: server.url });
  const jobs = recorder();
  try {
    await server.kill();
    const whileDown = await subscriber.subscribe("jobs", jobs.listener).catch((error) => error);
    await server.restart();
    while (subscriber.reconnects < 1) await Bun.sleep(5);
    const again = await subscriber.subscribe("jobs", jobs.listener).catch((error) => error);
    using publisher = await client(server.url);
    await publisher.send("PUBLISH", ["jobs", "hello"]);
    await jobs.until(() => jobs.calls.includes("hello"));
    expect({
      whileDown: whileDown instanceof RedisUnavailableError && whileDown.reason,
      status: (whileDown as RedisUnavailableError).status,
      again,
      calls: jobs.calls,
    }).toEqual({ whileDown: "disconnected", status: 503, again: undefined, calls: ["hello"] });
  } finally {
    subscriber.close();
  }
});
