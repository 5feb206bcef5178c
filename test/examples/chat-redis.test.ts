import { afterAll, beforeAll, expect, test } from "bun:test";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { openMember, until, type WebSocketMember } from "../support/websocket-member.ts";
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

test("--processes 2 --redis: every member of the room gets each message, whichever process holds it", async () => {
  await using group = await startExample("chat", [
    "bun",
    "run",
    "example",
    "chat",
    "--port",
    "0",
    "--processes",
    "2",
    "--redis",
    server.url,
  ]);
  // The kernel spreads the 8 connections over the 2 processes (SO_REUSEPORT).
  const members: WebSocketMember[] = [];
  for (let index = 0; index < 8; index++) members.push(await member(group.port, "many"));
  members[0]!.socket.send("first");
  await until(
    () => members.every((one) => one.received.length === 1),
    "the first message everywhere",
  );
  members[7]!.socket.send("second");
  await until(
    () => members.every((one) => one.received.length === 2),
    "the second message everywhere",
  );
  expect(members.map((one) => one.received)).toEqual(members.map(() => ["first", "second"]));
  for (const one of members) one.socket.close();
});
