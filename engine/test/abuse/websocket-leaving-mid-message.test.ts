import { describe, expect, test } from "bun:test";
import { type Exchange, validateHandshake, type WebSocketHandler } from "../../index.ts";
import { fakeSession } from "../support/fake-transport.ts";
import { startServer, waitUntil } from "../support/test-server.ts";
import { describeFrame, RawWebSocket } from "../support/websocket-client.ts";
import { clientFrame } from "../support/websocket-frames.ts";

const decoder = new TextDecoder();

/**
 * A handler that echoes every message, except one starting with "slow": that one is read before
 * and after an await the test releases, to see whether its borrowed bytes stayed the client's.
 */
function slowReader() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const seen = { before: "", after: "", entered: false, settled: false };
  const handler: WebSocketHandler = {
    async message(session, data, isText) {
      const text = decoder.decode(data);
      if (!text.startsWith("slow")) {
        session.send(isText ? text : data);
        return;
      }
      seen.before = text;
      seen.entered = true;
      await gate;
      seen.after = decoder.decode(data);
      seen.settled = true;
    },
    close() {},
  };
  const upgrade = (exchange: Exchange) => {
    if (validateHandshake(exchange).kind === "refused") {
      exchange.setStatus(400);
      exchange.writeText("not a handshake");
      return;
    }
    exchange.upgradeToWebSocket({ handler });
  };
  return { upgrade, seen, release };
}

describe("a message borrowed by a handler that still runs when its client leaves", () => {
  test("a small message (kept in the slot's own buffer) is not overwritten by the next client", async () => {
    const { upgrade, seen, release } = slowReader();
    await using server = startServer(upgrade, { maxConnections: 4 });
    const leaving = await RawWebSocket.open(server.port);
    const message = `slow ${"a".repeat(100)}`;
    leaving.sendFrame(1, message);
    await waitUntil(() => seen.entered, "the slow handler to start");
    leaving.destroy();
    await waitUntil(() => server.stats().webSockets.open === 0, "the close to be seen");
    // The slot stays with the running handler: the next client gets another one.
    expect(server.stats().connectionsOpen).toBe(0);
    using side = await RawWebSocket.open(server.port);
    side.sendFrame(1, `side ${"b".repeat(100)}`);
    expect((await side.waitFrames(1)).map(describeFrame)).toEqual([[1, `side ${"b".repeat(100)}`]]);
    release();
    await waitUntil(() => seen.settled, "the slow handler to settle");
    expect(seen.after).toBe(message);
    // Once it settled the slot is free again: all four can be opened at once.
    const sockets = await Promise.all([1, 2, 3].map(() => RawWebSocket.open(server.port)));
    for (const socket of sockets) socket.destroy();
  });

  test("an assembled message keeps its pool buffer until the handler settles", async () => {
    const { upgrade, seen, release } = slowReader();
    await using server = startServer(upgrade, {
      maxConnections: 4,
      webSocketMessageBuffers: 1,
      maxWebSocketMessageBytes: 64 * 1024,
    });
    const leaving = await RawWebSocket.open(server.port);
    const message = `slow ${"a".repeat(40_000)}`;
    leaving.sendFrame(1, message.slice(0, 20_000), false);
    leaving.sendFrame(0, message.slice(20_000));
    await waitUntil(() => seen.entered, "the slow handler to start");
    leaving.destroy();
    await waitUntil(() => server.stats().webSockets.open === 0, "the close to be seen");
    using side = await RawWebSocket.open(server.port);
    side.sendFrame(1, "small");
    expect((await side.waitFrames(1)).map(describeFrame)).toEqual([[1, "small"]]);
    // The only pool buffer is still lent: the side client's large message waits for it.
    const large = `side ${"b".repeat(40_000)}`;
    side.sendFrame(1, large.slice(0, 20_000), false);
    side.sendFrame(0, large.slice(20_000));
    await Bun.sleep(50);
    expect(side.frames().length).toBe(1);
    release();
    const frames = await side.waitFrames(2);
    expect(seen.after).toBe(message);
    expect(describeFrame(frames[1]!)).toEqual([1, large]);
  });
});

describe("the session's release of a message that outlived its connection", () => {
  test("a connection that closed inside the handler is released once the call returns or throws", () => {
    for (const ending of ["returns", "throws"] as const) {
      const closedDuring: boolean[] = [];
      const { session, transport } = fakeSession({
        message(self) {
          closedDuring.push(self.onClose());
          if (ending === "throws") throw new Error("after the close");
        },
        close() {},
      });
      session.onData(clientFrame(1, "hi"), true);
      expect([ending, closedDuring, transport.releases]).toEqual([ending, [true], 1]);
    }
  });

  test("a connection closed while no message is handled holds nothing", () => {
    const { session, transport } = fakeSession({ message() {}, close() {} });
    session.onData(clientFrame(1, "hi"), true);
    expect([session.onClose(), transport.releases]).toEqual([false, 0]);
  });

  test("a rejected handler that outlived its connection is released and still reported", async () => {
    const reports: string[] = [];
    let reject: (error: Error) => void = () => {};
    const { session, transport, counters } = fakeSession({
      message: () =>
        new Promise<void>((_resolve, fail) => {
          reject = fail;
        }),
      close() {},
      failed: (_self, error) => void reports.push((error as Error).message),
    });
    // Two frames: assembled in a pool buffer, which stays lent while the handler runs.
    session.onData(clientFrame(2, new Uint8Array(100), { final: false }), true);
    session.onData(clientFrame(0, new Uint8Array(100)), true);
    expect(session.onClose()).toBe(true);
    expect(counters.messageBuffersInUse).toBe(1);
    reject(new Error("late"));
    await Bun.sleep(0);
    expect([transport.releases, reports, counters.messageBuffersInUse]).toEqual([1, ["late"], 0]);
  });
});

test("a healthy client is not dropped while its message's handler awaits longer than the pong timeout", async () => {
  const handled: string[] = [];
  const handler: WebSocketHandler = {
    async message(session, data) {
      await Bun.sleep(400);
      handled.push(decoder.decode(data));
      session.send("done");
    },
    close() {},
  };
  await using server = startServer(
    (exchange) => {
      exchange.upgradeToWebSocket({ handler, limits: { pingIntervalMs: 40, pongTimeoutMs: 40 } });
    },
    { sweepIntervalMs: 10 },
  );
  // Bun's client answers every ping with a pong by itself.
  const client = new WebSocket(`ws://127.0.0.1:${server.port}/`);
  const replies: string[] = [];
  const closed = Promise.withResolvers<number>();
  client.onmessage = (event) => void replies.push(String(event.data));
  client.onclose = (event) => closed.resolve(event.code);
  await new Promise((resolve) => {
    client.onopen = resolve;
  });
  client.send("slow");
  await waitUntil(() => replies.length === 1, "the slow handler's reply", 3000);
  expect([handled, replies, server.stats().webSockets.closes.pongTimeout]).toEqual([
    ["slow"],
    ["done"],
    0,
  ]);
  client.close(1000);
  expect(await closed.promise).toBe(1000);
});
