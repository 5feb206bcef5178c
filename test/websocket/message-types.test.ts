import { expect, test } from "bun:test";
import { App } from "corral";
import { listenQuietly } from "../support/listen-quietly.ts";

/** A client over TCP that records what it receives and how it was closed. */
async function connect(port: number, path: string) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`);
  const received: string[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.onclose = (event) => resolve({ code: event.code, reason: event.reason });
  });
  socket.onmessage = (event) => received.push(String(event.data));
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("the WebSocket did not open"));
  });
  return { socket, received, closed };
}

test("send() or publish() of neither text nor bytes is a TypeError: the socket closes 1011, logged; the room gets nothing", async () => {
  const logged: string[] = [];
  const app = new App({ log: { error: (...values) => logged.push(values.map(String).join(" ")) } });
  app.ws("/send", {
    message(socket) {
      socket.send({ greeting: "hi" } as never);
    },
  });
  app.ws("/room", {
    open(socket) {
      socket.subscribe("lobby");
    },
    message(socket, message) {
      if (message === "bad") socket.publish("lobby", new ArrayBuffer(4) as never);
      else socket.publish("lobby", `said ${String(message)}`);
    },
  });
  const server = listenQuietly(app);
  const sender = await connect(server.port, "/send");
  sender.socket.send("anything");
  expect(await sender.closed).toEqual({ code: 1011, reason: "" });

  const side = await connect(server.port, "/room");
  const publisher = await connect(server.port, "/room");
  publisher.socket.send("bad");
  expect(await publisher.closed).toEqual({ code: 1011, reason: "" });
  // The side member got nothing from the refused publish, and the room still works.
  const writer = await connect(server.port, "/room");
  writer.socket.send("hello");
  // Frames of one socket arrive in order: anything the refused publish had sent comes first.
  for (let waited = 0; side.received.length === 0 && waited < 5000; waited += 10)
    await Bun.sleep(10);
  expect(side.received).toEqual(["said hello"]);
  expect(logged.map((line) => line.slice(line.indexOf("TypeError: ") + 11))).toEqual([
    "corral: a WebSocket message is a string or a Uint8Array, got an object (send JSON.stringify(value))",
    "corral: a WebSocket message is a string or a Uint8Array, got an ArrayBuffer (wrap it: new Uint8Array(buffer))",
  ]);
  side.socket.close();
  writer.socket.close();
  await app.stop();
});
