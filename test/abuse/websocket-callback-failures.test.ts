import { expect, test } from "bun:test";
import { App } from "corral";
import { describeFrame, RawWebSocket } from "../../engine/test/support/websocket-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

// A WebSocket route's callback that throws (or whose message promise rejects) is the WebSocket
// form of a handler error: it is logged for the operator and counted, and the socket is closed
// with 1011, never silently. Each test runs a side client that must still be served.

type Failing = "open" | "message" | "rejecting message" | "drain" | "close";

function failingApp(failing: Failing, limits: { maxConnections?: number } = {}) {
  const logged: string[] = [];
  const app = new App({
    shared: {},
    limits,
    log: { error: (line: unknown, error: unknown) => logged.push(`${line} ${error}`) },
  });
  app.get("/ping", (ctx) => ctx.response.text(200, "pong"));
  app.ws("/socket", {
    limits: { maxOutboundBytes: 64 * 1024 * 1024 },
    open() {
      if (failing === "open") throw new Error("open broke");
    },
    async message(socket, message) {
      if (failing === "message") throw new Error("message broke");
      if (failing === "rejecting message") {
        await Bun.sleep(1);
        throw new Error("message rejected");
      }
      if (message === "flood") {
        // A piece a turn (sends leave at the end of the turn) until the client's socket stops
        // taking them: `drain` follows once it reads again.
        const piece = "x".repeat(64 * 1024);
        for (let turn = 0; turn < 1024; turn++) {
          if (socket.send(piece) === "backpressured") return;
          await Bun.sleep(0);
        }
        throw new Error("the client's socket never pushed back");
      }
      socket.send(message);
    },
    drain() {
      if (failing === "drain") throw new Error("drain broke");
    },
    close() {
      if (failing === "close") throw new Error("close broke");
    },
  });
  const server = listenQuietly(app);
  return Object.assign(app, {
    port: server.port,
    logged,
    [Symbol.asyncDispose]: () => app.stop({ graceMs: 100 }),
  });
}

async function sidePing(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/ping`);
  return `${response.status} ${await response.text()}`;
}

test("a throwing open: the client gets a close 1011, the operator a log line; others are served", async () => {
  await using app = failingApp("open");
  using client = await RawWebSocket.open(app.port, "/socket");
  const [close] = await client.waitFrames(1);
  expect(describeFrame(close!)).toEqual([8, 1011, ""]);
  expect(await sidePing(app.port)).toBe("200 pong");
  expect(app.logged).toEqual([
    "corral: WebSocket /socket: its open callback failed; the socket is closed with 1011: Error: open broke",
  ]);
  const stats = app.stats();
  expect([stats.webSockets.callbackFailures, stats.handlerFailures]).toEqual([1, 1]);
});

for (const failing of ["message", "rejecting message"] as const) {
  test(`a ${failing}: close 1011 and a log line, counted as handlerFailed; others are served`, async () => {
    await using app = failingApp(failing);
    using client = await RawWebSocket.open(app.port, "/socket");
    client.sendFrame(1, "hello");
    const [close] = await client.waitFrames(1);
    expect(describeFrame(close!)).toEqual([8, 1011, ""]);
    client.sendFrame(8, new Uint8Array([0x03, 0xf3]));
    await client.waitClosed();
    expect(await sidePing(app.port)).toBe("200 pong");
    const error = failing === "message" ? "message broke" : "message rejected";
    expect(app.logged).toEqual([
      `corral: WebSocket /socket: its message callback failed; the socket is closed with 1011: Error: ${error}`,
    ]);
    expect(app.stats().webSockets.closes.handlerFailed).toBe(1);
  });
}

test("a throwing drain: what was queued arrives, then a close 1011, and a log line", async () => {
  await using app = failingApp("drain");
  using client = await RawWebSocket.open(app.port, "/socket");
  client.raw.stopReading();
  client.sendFrame(1, "flood");
  await Bun.sleep(200);
  client.raw.resumeReading();
  await client.raw.waitFor(() => client.frames().at(-1)?.opcode === 8, "the close frame", 10_000);
  client.sendFrame(8, new Uint8Array([0x03, 0xf3]));
  await client.waitClosed();
  const frames = client.frames();
  expect(describeFrame(frames.at(-1)!)).toEqual([8, 1011, ""]);
  expect(frames.slice(0, -1).every((frame) => frame.payload.length === 64 * 1024)).toBe(true);
  expect(frames.length).toBeGreaterThan(2);
  expect(await sidePing(app.port)).toBe("200 pong");
  expect(app.logged).toEqual([
    "corral: WebSocket /socket: its drain callback failed; the socket is closed with 1011: Error: drain broke",
  ]);
});

test("a throwing close never keeps its connection slot: more such closes than slots, and a side client is served", async () => {
  // Before, each such close kept its slot for good: with 2 slots the third socket, and every
  // client after it, got the server-full 503.
  await using app = failingApp("close", { maxConnections: 2 });
  for (let round = 0; round < 4; round++) {
    using client = await RawWebSocket.open(app.port, "/socket");
    client.sendFrame(8, new Uint8Array([0x03, 0xe8]));
    await client.waitClosed();
  }
  expect(await sidePing(app.port)).toBe("200 pong");
  expect(app.logged).toEqual(
    Array(4).fill("corral: WebSocket /socket: its close callback failed: Error: close broke"),
  );
  const stats = app.stats();
  expect([stats.webSockets.callbackFailures, stats.webSockets.closes.normal]).toEqual([4, 4]);
  expect([stats.connectionsRejected, stats.handlerFailures]).toEqual([0, 4]);
});
