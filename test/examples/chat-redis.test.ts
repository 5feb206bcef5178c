import { afterAll, beforeAll, expect, test } from "bun:test";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { startExample } from "./support/start-example.ts";

// Two instances of the chat example on one Redis: a room's members on either are one room.

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server[Symbol.asyncDispose]());

const startInstance = () =>
  startExample("chat", ["bun", "run", "example", "chat", "--port", "0", "--redis", server.url]);

async function member(port: number, room: string) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/chat?room=${room}`);
  const messages: string[] = [];
  socket.addEventListener("message", (event) => messages.push(String(event.data)));
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve);
    socket.addEventListener("error", reject);
  });
  return { socket, messages };
}

async function until(condition: () => boolean, what: string) {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

test("members on two instances are one room; another room hears nothing", async () => {
  await using a = await startInstance();
  await using b = await startInstance();
  const onA = await member(a.port, "shared");
  const onB = await member(b.port, "shared");
  const otherRoom = await member(b.port, "other");
  onA.socket.send("from A");
  await until(() => onB.messages.length === 1, "A's message on B");
  onB.socket.send("from B");
  await until(() => onA.messages.length === 2 && onB.messages.length === 2, "both messages");
  expect([onA.messages, onB.messages, otherRoom.messages]).toEqual([
    ["from A", "from B"],
    ["from A", "from B"],
    [],
  ]);
  for (const client of [onA, onB, otherRoom]) client.socket.close();
});
