import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisUnavailableError } from "../../src/redis/redis-unavailable-error.ts";
import { RedisSessionStore } from "../../src/sessions/redis-session-store.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { brief, instance, openStream } from "./redis-event-instance.ts";

let shared: RedisServer;
beforeAll(async () => {
  shared = await startRedisServer();
});
afterAll(() => shared[Symbol.asyncDispose]());

test("a client on A receives what B publishes, and replays what it missed from B", async () => {
  await using a = await instance(shared.url, "replay");
  await using b = await instance(shared.url, "replay");
  const onA = await openStream(a.url);
  // A stream answers once it has read its cursor; publishing now cannot race ahead of it.
  for (const n of [1, 2, 3]) await b.channel.publish({ n });
  const seenOnA = await onA.until((events) => events.length === 3);
  onA.close();
  for (const n of [4, 5]) await b.channel.publish({ n });
  const onB = await openStream(b.url, 3);
  const replayedOnB = await onB.until((events) => events.length === 2);
  onB.close();
  expect({ seenOnA: brief(seenOnA), replayedOnB: brief(replayedOnB) }).toEqual({
    seenOnA: ['1:message:{"n":1}', '2:message:{"n":2}', '3:message:{"n":3}'],
    replayedOnB: ['4:message:{"n":4}', '5:message:{"n":5}'],
  });
});

test("events trimmed past the replay capacity are reported by a gap event on any instance", async () => {
  await using a = await instance(shared.url, "trimmed", { replayCapacity: 3 });
  await using b = await instance(shared.url, "trimmed", { replayCapacity: 3 });
  for (const n of [1, 2, 3, 4, 5]) await b.channel.publish({ n });
  const exactly = await openStream(a.url, 2); // 3, 4, 5 are all still held: no gap
  const held = await exactly.until((events) => events.length === 3);
  exactly.close();
  const late = await openStream(a.url, 1); // 2 was trimmed
  const gapped = await late.until((events) => events.length === 4);
  late.close();
  expect({ held: brief(held), gapped: brief(gapped) }).toEqual({
    held: ['3:message:{"n":3}', '4:message:{"n":4}', '5:message:{"n":5}'],
    gapped: [
      '2:gap:{"missedFrom":2,"resumedAt":3}',
      '3:message:{"n":3}',
      '4:message:{"n":4}',
      '5:message:{"n":5}',
    ],
  });
});

test("Redis killed and restarted mid-stream: the stream stays open and loses nothing; sessions fail closed meanwhile", async () => {
  await using own = await startRedisServer();
  await using a = await instance(own.url, "restart");
  await using b = await instance(own.url, "restart");
  const sessions = new RedisSessionStore<string>({
    redis: a.redis,
    capacity: 4,
    lifetimeMs: 60_000,
  });
  const { token } = await sessions.create("ada");
  const stream = await openStream(a.url);
  for (const n of [1, 2]) await b.channel.publish({ n });
  await stream.until((events) => events.length === 2);
  await own.kill();
  const publishWhileDown = await Promise.resolve(b.channel.publish({ n: 0 })).catch(
    (error: unknown) => error,
  );
  const sessionWhileDown = await sessions.get(token).catch((error: unknown) => error);
  await own.restart();
  // Only B must be back to publish: A's streams are woken by whichever of its connections
  // comes back last (the subscriber after it subscribes again, or the command connection).
  while (!b.redis.stats().connected) {
    await Bun.sleep(5);
  }
  for (const n of [3, 4]) await b.channel.publish({ n });
  const events = await stream.until((seen) => seen.length === 4);
  stream.close();
  expect({
    publishWhileDown: publishWhileDown instanceof RedisUnavailableError,
    sessionWhileDown: sessionWhileDown instanceof RedisUnavailableError && sessionWhileDown.status,
    events: brief(events),
    reconnects: [a.redis.stats().reconnects, b.redis.stats().reconnects],
  }).toEqual({
    publishWhileDown: true,
    sessionWhileDown: 503,
    events: ['1:message:{"n":1}', '2:message:{"n":2}', '3:message:{"n":3}', '4:message:{"n":4}'],
    reconnects: [1, 1],
  });
});
