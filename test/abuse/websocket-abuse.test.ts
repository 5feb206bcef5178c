import { expect, test } from "bun:test";
import { App, type WebSocketLimits } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { describeFrame, RawWebSocket } from "../../engine/test/support/websocket-client.ts";
import { clientFrame } from "../../engine/test/support/websocket-frames.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { openMember, until, type WebSocketMember } from "../support/websocket-member.ts";

// Each hostile client runs beside a side member that must keep being served.

function roomApp(limits: Partial<WebSocketLimits>, appLimits = {}) {
  const app = new App({ shared: {}, limits: appLimits });
  app.ws("/room", {
    limits,
    open: (socket) => socket.subscribe("room"),
    message(socket, message) {
      socket.send(message);
    },
  });
  const server = listenQuietly(app);
  return Object.assign(app, {
    port: server.port,
    [Symbol.asyncDispose]: () => app.stop({ graceMs: 100 }),
  });
}

const sideMember = (port: number) => openMember(`ws://127.0.0.1:${port}/room`);

/** Publishes `count` messages of `payload` to the room, letting the sockets write between them. */
async function broadcast(app: App<object>, count: number, payload: Uint8Array) {
  await until(() => app.rooms.size("room") === 2, "both members");
  for (let index = 0; index < count; index++) {
    app.rooms.publish("room", payload);
    await Bun.sleep(0);
  }
}

/** The side member still gets an echo. */
async function echoes(member: WebSocketMember, text: string) {
  const before = member.received.length;
  member.socket.send(text);
  await until(() => member.received.length > before, "the side member's echo");
  return member.received.at(-1);
}

test("a member that never reads during a broadcast is closed at its cap; the others get every message", async () => {
  await using app = roomApp({ maxOutboundBytes: 256 * 1024, outboundPolicy: "close" });
  const hostile = await RawWebSocket.open(app.port, "/room");
  hostile.raw.stopReading();
  const side = await sideMember(app.port);
  await broadcast(app, 200, new Uint8Array(64 * 1024).fill(1));
  await until(() => side.received.length === 200, "200 messages on the side member");
  await hostile.waitClosed();
  await until(() => app.rooms.size("room") === 1, "the hostile member's close");
  const stats = app.stats().webSockets;
  expect({
    sideReceived: side.received.length,
    hostileClosed: stats.closes.outboundOverflow,
    stillMember: app.rooms.size("room"),
    refusedAtLeastOnce: stats.sendsRefused >= 1,
  }).toEqual({ sideReceived: 200, hostileClosed: 1, stillMember: 1, refusedAtLeastOnce: true });
  hostile.destroy();
  side.socket.close();
});

test("under the 'drop' policy a non-reader keeps its socket and its messages are dropped and counted", async () => {
  await using app = roomApp({ maxOutboundBytes: 256 * 1024, outboundPolicy: "drop" });
  const hostile = await RawWebSocket.open(app.port, "/room");
  hostile.raw.stopReading();
  const side = await sideMember(app.port);
  await broadcast(app, 200, new Uint8Array(64 * 1024).fill(2));
  await until(() => side.received.length === 200, "200 messages on the side member");
  const stats = app.stats().webSockets;
  expect([stats.sendsDropped > 0, stats.sendsDropped === stats.sendsRefused, stats.open]).toEqual([
    true,
    true,
    2,
  ]);
  hostile.destroy();
  side.socket.close();
});

test("2,000 idle WebSockets stay open; a side member is still served", async () => {
  await using app = roomApp({}, { maxConnections: 2100 });
  const idle: RawWebSocket[] = [];
  for (let index = 0; index < 2000; index++) idle.push(await RawWebSocket.open(app.port, "/room"));
  const side = await sideMember(app.port);
  expect(await echoes(side, "still here")).toBe("still here");
  expect([app.stats().webSockets.open, app.stats().connectionsOpen]).toEqual([2001, 2001]);
  for (const socket of idle) socket.destroy();
  side.socket.close();
}, 60_000);

test("a fragment per second is closed with 1008 at the message deadline; the side member is served", async () => {
  await using app = roomApp({ messageDeadlineMs: 600, closeTimeoutMs: 300 });
  const hostile = await RawWebSocket.open(app.port, "/room");
  const side = await sideMember(app.port);
  hostile.sendFrame(1, "a", false);
  const dripping = setInterval(() => hostile.sendFrame(0, "a", false), 100);
  try {
    expect(await echoes(side, "meanwhile")).toBe("meanwhile");
    await hostile.waitClosed();
  } finally {
    clearInterval(dripping);
  }
  expect(hostile.frames().map(describeFrame)).toEqual([[8, 1008, "message deadline passed"]]);
  expect(app.stats().webSockets.closes.messageDeadline).toBe(1);
  side.socket.close();
});

test("a ping flood from a client that does not read: its pongs are replaced, not queued; the side member is served", async () => {
  await using app = roomApp({});
  const hostile = await RawWebSocket.open(app.port, "/room");
  hostile.raw.stopReading();
  const ping = clientFrame(9, "x".repeat(125));
  const flood = new Uint8Array(ping.length * 20_000);
  for (let index = 0; index < 20_000; index++) flood.set(ping, index * ping.length);
  for (let round = 0; round < 5; round++) hostile.raw.send(flood);
  const side = await sideMember(app.port);
  expect(await echoes(side, "pong flood?")).toBe("pong flood?");
  expect(app.stats().webSockets.open).toBe(2);
  hostile.destroy();
  side.socket.close();
});

test("a flood of empty messages from a client that reads: the side member's echo comes back long before the flood is handled", async () => {
  // Before, a pass handled every frame of a socket chunk (80,000 empty frames in 480 KB): behind
  // one such client a side client's echo took seconds. A socket now handles 64 frames a turn.
  await using app = roomApp({ maxOutboundBytes: 16 * 1024 * 1024 });
  const side = await sideMember(app.port);
  const hostile = await RawWebSocket.open(app.port, "/room");
  const empty = clientFrame(1, "");
  const frames = 80_000;
  const flood = new Uint8Array(empty.length * frames);
  for (let index = 0; index < frames; index++) flood.set(empty, index * empty.length);
  const rounds = 10;
  // `send` keeps the writes in order (concurrent `push`es could interleave mid-frame).
  for (let round = 0; round < rounds; round++) hostile.raw.send(flood);
  await until(() => app.stats().webSockets.messagesIn > 1000, "the flood to be handled");
  expect(await echoes(side, "still served")).toBe("still served");
  const handledBeforeSide = app.stats().webSockets.messagesIn;
  expect(handledBeforeSide).toBeLessThan((frames * rounds) / 2);
  // The flood is served too, every frame of it (on a timeout, the counters say how far it got).
  await until(
    () => app.stats().webSockets.messagesIn === frames * rounds + 1,
    "the whole flood",
    30_000,
  ).catch((error) => {
    const { messagesIn, open, closes } = app.stats().webSockets;
    throw new Error(
      `${error}: ${JSON.stringify({ messagesIn, open, closes, sent: hostile.raw.bytesSent })}`,
    );
  });
  expect(app.stats().webSockets.open).toBe(2);
  hostile.destroy();
  side.socket.close();
}, 60_000);

test("sockets that start large messages and stall lose their message buffers to a waiting message (1013)", async () => {
  // Before, 4 such sockets held all 4 message buffers until their message deadlines (30 s): any
  // other socket's large message that came in pieces waited that long.
  await using app = roomApp({}, { webSocketMessageBufferHoldMs: 300 });
  const stalled = await Promise.all(
    Array.from({ length: 4 }, () => RawWebSocket.open(app.port, "/room")),
  );
  const partial = clientFrame(2, new Uint8Array(60 * 1024));
  for (const hostile of stalled) hostile.sendBytes(partial.subarray(0, 20 * 1024));
  await until(() => app.stats().webSockets.messageBuffersInUse === 4, "4 buffers held");
  using side = await RawWebSocket.open(app.port, "/room");
  const message = clientFrame(2, new Uint8Array(40 * 1024).fill(7));
  side.sendBytes(message.subarray(0, 20 * 1024));
  await Bun.sleep(50);
  side.sendBytes(message.subarray(20 * 1024));
  const [echo] = await side.waitFrames(1);
  expect([echo!.opcode, echo!.payload.length, echo!.payload[0]]).toEqual([2, 40 * 1024, 7]);
  // One buffer was wanted: the socket that held its buffer longest gave it up.
  const closed = stalled.filter((hostile) => hostile.frames().length > 0);
  expect(closed.map((hostile) => describeFrame(hostile.frames()[0]!))).toEqual([
    [8, 1013, "message buffer reclaimed"],
  ]);
  await until(() => app.stats().webSockets.closes.bufferReclaimed === 1, "the close counted");
  for (const hostile of stalled) hostile.destroy();
});

test("a message of exactly maxMessageBytes is echoed; one byte more is closed with 1009", async () => {
  await using app = roomApp({ maxMessageBytes: 64 * 1024, maxFrameBytes: 64 * 1024 });
  const side = await sideMember(app.port);
  using exact = await RawWebSocket.open(app.port, "/room");
  exact.sendFrame(2, new Uint8Array(64 * 1024));
  const [echo] = await exact.waitFrames(1);
  expect([echo!.opcode, echo!.payload.length]).toEqual([2, 64 * 1024]);
  using over = await RawWebSocket.open(app.port, "/room");
  over.sendFrame(2, new Uint8Array(64 * 1024 + 1));
  await over.waitClosed();
  expect(over.frames().map(describeFrame)).toEqual([[8, 1009, "frame over maxFrameBytes"]]);
  expect(await echoes(side, "fine")).toBe("fine");
  side.socket.close();
});

test("a plain HTTP client on the same App is still answered while WebSockets are open", async () => {
  await using app = roomApp({});
  const side = await sideMember(app.port);
  const raw = await RawClient.connect(app.port);
  raw.send("GET /room HTTP/1.1\r\nHost: x\r\n\r\n");
  const response = await raw.response();
  expect(response.status).toBe(400);
  raw.destroy();
  side.socket.close();
});
