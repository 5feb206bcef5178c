import { afterAll, beforeAll, expect, test } from "bun:test";
import { App, RedisConnection, RedisRoomBridge, RedisSubscriber } from "../../src/index.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { until } from "../support/websocket-member.ts";

// Two Apps in this process stand for two processes: each has its own rooms, Redis connections
// and bridge (its own origin id), on one redis-server.

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server[Symbol.asyncDispose]());

async function bridgedApp() {
  const app = new App({ shared: {} });
  app.ws("/room", {
    open: (socket) => socket.subscribe("room"),
    message: (socket, message) => void socket.publish("room", message),
  });
  const redis = await RedisConnection.open({ url: server.url });
  const subscriber = await RedisSubscriber.open({ url: server.url });
  const bridge = await RedisRoomBridge.open(app.rooms, { redis, subscriber });
  return {
    app,
    bridge,
    async [Symbol.asyncDispose]() {
      await app.stop();
      subscriber.close();
      redis.close();
    },
  };
}

test("text and binary publishes reach the members of another process once; the sender's process is not echoed twice", async () => {
  await using a = await bridgedApp();
  await using b = await bridgedApp();
  const onA = await a.app.connectWebSocket("/room");
  const onB = await b.app.connectWebSocket("/room");
  onA.send("hello");
  onA.send(new Uint8Array([0, 255, 7]));
  expect([await onB.next(), await onB.next()]).toEqual(["hello", new Uint8Array([0, 255, 7])]);
  expect([await onA.next(), await onA.next()]).toEqual(["hello", new Uint8Array([0, 255, 7])]);
  onB.send("back");
  expect([await onA.next(), await onB.next()]).toEqual(["back", "back"]);
  await until(() => a.bridge.stats().received === 1, "A hearing B's publish");
  expect([a.bridge.stats(), b.bridge.stats()]).toEqual([
    { forwarded: 2, forwardFailures: 0, received: 1 },
    { forwarded: 1, forwardFailures: 0, received: 2 },
  ]);
  expect(a.app.rooms.stats()).toEqual({
    rooms: 1,
    memberships: 1,
    joinsRefused: 0,
    publishes: 3,
    deliveries: 3,
    refused: 0,
  });
});

test("while Redis is away, a publish reaches the members here and is counted as not forwarded", async () => {
  await using a = await bridgedApp();
  const member = await a.app.connectWebSocket("/room");
  await server.kill();
  try {
    member.send("alone");
    expect(await member.next()).toBe("alone");
    await until(() => a.bridge.stats().forwardFailures === 1, "the failed forward");
  } finally {
    await server.restart();
  }
});
