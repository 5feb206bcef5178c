import { expect, test } from "bun:test";
import { RedisClient } from "bun";
import { publishScript } from "../../src/events/redis-event-scripts.ts";
import { startRedisServer } from "../support/redis-server.ts";
import { brief, instance, openStream } from "./redis-event-instance.ts";

/** The EVAL commands Redis has run (publishes and reads of event channels). */
async function evals(through: {
  redis: { command(name: string, args: string[]): Promise<unknown> };
}) {
  const info = String(await through.redis.command("INFO", ["commandstats"]));
  return Number(/cmdstat_eval:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

test("reads refused as busy are retried: every stream gets the event with no other publish, and only the failed ones read again", async () => {
  await using redis = await startRedisServer();
  await using a = await instance(redis.url, "busy", { connection: { maxPendingCommands: 1 } });
  await using b = await instance(redis.url, "busy");
  const streams = [];
  for (let count = 0; count < 3; count++) {
    streams.push(await openStream(a.url));
    // One command at a time: the next stream's start must not find this one's read pending.
    while (a.redis.stats().pendingCommands > 0) await Bun.sleep(5);
  }
  const evalsBefore = await evals(b);
  await b.channel.publish({ n: 1 });
  const received = [];
  for (const stream of streams)
    received.push(brief(await stream.until((seen) => seen.length === 1)));
  for (const stream of streams) stream.close();
  expect({
    received,
    // Three reads at once and one passed: the other two were refused, then tried again.
    retried: a.redis.stats().rejectedBusy >= 2,
    // The publish, and one read per stream that got through: a stream that had the event
    // already did not read again when a retry woke it, whatever the retries' timing.
    evals: (await evals(b)) - evalsBefore,
  }).toEqual({
    received: [['1:message:{"n":1}'], ['1:message:{"n":1}'], ['1:message:{"n":1}']],
    retried: true,
    evals: 4,
  });
});

test("a read that times out while Redis is slow is retried: the event arrives with no other publish or heartbeat", async () => {
  await using redis = await startRedisServer();
  await using a = await instance(redis.url, "slow", { connection: { commandTimeoutMs: 100 } });
  const stream = await openStream(a.url);
  const other = new RedisClient(redis.url);
  await other.connect();
  try {
    const keys = ["stream", "id", "published"].map((key) => `corral:events:slow:${key}`);
    // One connection, in order: the event's notification goes out, then every client's commands
    // are held for 400 ms, so the read it wakes times out (100 ms) at least once.
    await Promise.all([
      other.send("EVAL", [publishScript, "3", ...keys, JSON.stringify({ n: 1 }), "16", "0"]),
      other.send("CLIENT", ["PAUSE", "400", "ALL"]),
    ]);
    const events = await stream.until((seen) => seen.length === 1);
    stream.close();
    expect({ events: brief(events), timedOut: a.redis.stats().timeouts > 0 }).toEqual({
      events: ['1:message:{"n":1}'],
      timedOut: true,
    });
  } finally {
    other.close();
  }
});
