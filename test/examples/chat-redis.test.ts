import { afterAll, beforeAll, expect, test } from "bun:test";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { openMember, until } from "../support/websocket-member.ts";
import { startExample } from "./support/start-example.ts";

// Two instances of the chat example on one Redis: a room's members on either are one room.

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server[Symbol.asyncDispose]());

const startInstance = () =>
  startExample("chat", ["bun", "run", "example", "chat", "--port", "0", "--redis", server.url]);

const member = (port: number, room: string) =>
  openMember(`ws://127.0.0.1:${port}/chat?room=${room}`);

test("members on two instances are one room; another room hears nothing", async () => {
  await using a = await startInstance();
  await using b = await startInstance();
  const onA = await member(a.port, "shared");
  const onB = await member(b.port, "shared");
  const otherRoom = await member(b.port, "other");
  onA.socket.send("from A");
  await until(() => onB.received.length === 1, "A's message on B");
  onB.socket.send("from B");
  await until(() => onA.received.length === 2 && onB.received.length === 2, "both messages");
  expect([onA.received, onB.received, otherRoom.received]).toEqual([
    ["from A", "from B"],
    ["from A", "from B"],
    [],
  ]);
  for (const client of [onA, onB, otherRoom]) client.socket.close();
});
