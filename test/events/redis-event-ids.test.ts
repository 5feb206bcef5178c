import { expect, test } from "bun:test";
import { startRedisServer } from "../support/redis-server.ts";
import { brief, instance, openStream } from "./redis-event-instance.ts";

/** Waits until every connection of the instances is back after a restart. */
async function reconnected(...instances: { redis: { stats(): { connected: boolean } } }[]) {
  while (!instances.every(({ redis }) => redis.stats().connected)) await Bun.sleep(5);
}

test("Redis restarts empty: a publish-only instance continues above the ids it was notified of, and the open stream gets them with no gap", async () => {
  await using redis = await startRedisServer();
  await using a = await instance(redis.url, "ids");
  await using worker = await instance(redis.url, "ids"); // publishes only, streams nothing
  const stream = await openStream(a.url);
  for (const n of [1, 2, 3, 4, 5]) await a.channel.publish({ n });
  await stream.until((events) => events.length === 5);
  // The worker takes its next id above those it heard of in the notifications.
  while (worker.channel.notifier.notifications < 5) await Bun.sleep(5);
  await redis.restart();
  await reconnected(a, worker);
  const ids = [];
  for (const n of [6, 7, 8]) ids.push(await worker.channel.publish({ n }));
  const events = await stream.until((seen) => seen.length === 8);
  stream.close();
  expect({ ids, after: brief(events.slice(5)) }).toEqual({
    ids: [6, 7, 8],
    after: ['6:message:{"n":6}', '7:message:{"n":7}', '8:message:{"n":8}'],
  });
});

test("an instance opened after the last publish starts its ids above the latest Redis held at open", async () => {
  await using redis = await startRedisServer();
  await using a = await instance(redis.url, "late");
  for (const n of [1, 2, 3]) await a.channel.publish({ n });
  await using late = await instance(redis.url, "late"); // heard no notification
  await redis.restart();
  await reconnected(late);
  expect(await late.channel.publish({ n: 4 })).toBe(4);
});

test("a stream whose cursor is above every id Redis holds gets a gap event, then the events held", async () => {
  await using redis = await startRedisServer();
  await using a = await instance(redis.url, "behind");
  for (const n of [1, 2, 3]) await a.channel.publish({ n });
  const read = await a.channel.readAfter(50, 64);
  const stream = await openStream(a.url, 50); // kept from before a restart, say
  await stream.until((seen) => seen.length === 4);
  await a.channel.publish({ n: 4 });
  const next = await stream.until((seen) => seen.length === 5);
  stream.close();
  const { gap, nextId } = read;
  expect({
    read: { ids: read.events.map((event) => event.id), gap, nextId },
    events: brief(next),
  }).toEqual({
    read: { ids: [1, 2, 3], gap: true, nextId: 4 },
    events: [
      '0:gap:{"missedFrom":51,"resumedAt":1}',
      '1:message:{"n":1}',
      '2:message:{"n":2}',
      '3:message:{"n":3}',
      '4:message:{"n":4}',
    ],
  });
});

test("a cursor above every id, while the stream is empty, waits: the gap comes with the first event held", async () => {
  await using redis = await startRedisServer();
  await using a = await instance(redis.url, "empty");
  const stream = await openStream(a.url, 7);
  const before = await a.channel.readAfter(7, 64);
  await a.channel.publish({ n: 1 });
  const events = await stream.until((seen) => seen.length === 2);
  stream.close();
  expect({ before, events: brief(events) }).toEqual({
    before: { events: [], gap: false, nextId: 8 },
    events: ['0:gap:{"missedFrom":8,"resumedAt":1}', '1:message:{"n":1}'],
  });
});
