import { expect, test } from "bun:test";
import { App, EventChannel, ManualIo, serverSentEvents } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

interface Progress {
  readonly step: number;
}

function createApp(
  channel: EventChannel<Progress>,
  options: { io?: ManualIo; session?: { valid: boolean } } = {},
) {
  const app = new App({ shared: {}, ...(options.io ? { io: options.io } : {}) });
  app.continuation(
    "GET",
    "/events",
    serverSentEvents(channel, {
      eventName: () => "progress",
      isLast: (payload) => payload.step === 100,
      heartbeatMs: 10_000,
      resume: () => options.session?.valid ?? true,
    }),
  );
  return app;
}

test("events stream with ids; a reconnect with Last-Event-ID replays what it missed", async () => {
  const channel = new EventChannel<Progress>({ replayCapacity: 8, maxSubscribers: 10 });
  const app = createApp(channel);
  const server = listenQuietly(app);
  const first = await RawClient.connect(server.port);
  first.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => channel.subscribers === 1, "the stream to wait");
  channel.publish({ step: 1 });
  channel.publish({ step: 2 });
  await first.waitFor(() => first.receivedText.includes('data: {"step":2}'), "two events");
  const head = first.receivedText;
  expect(head).toContain("Content-Type: text/event-stream; charset=utf-8\r\n");
  expect(head).toContain("Cache-Control: no-cache\r\n");
  expect(head).toContain('event: progress\nid: 1\ndata: {"step":1}\n\n');
  first.destroy();
  await waitUntil(() => channel.subscribers === 0, "the first stream to end");
  channel.publish({ step: 3 });
  channel.publish({ step: 4 });
  using again = await RawClient.connect(server.port);
  again.send("GET /events HTTP/1.1\r\nHost: h\r\nLast-Event-ID: 2\r\n\r\n");
  await again.waitFor(() => again.receivedText.includes('data: {"step":4}'), "the replay");
  channel.publish({ step: 100 });
  const response = await again.response();
  expect(response.text).toBe(
    'event: progress\nid: 3\ndata: {"step":3}\n\n' +
      'event: progress\nid: 4\ndata: {"step":4}\n\n' +
      'event: progress\nid: 5\ndata: {"step":100}\n\n',
  );
  await app.stop();
});

test("an id that fell out of the ring gets a gap event, then the oldest events still held", async () => {
  const channel = new EventChannel<Progress>({ replayCapacity: 3, maxSubscribers: 10 });
  for (let step = 1; step <= 10; step++) channel.publish({ step });
  const app = createApp(channel);
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /events HTTP/1.1\r\nHost: h\r\nLast-Event-ID: 2\r\n\r\n");
  await client.waitFor(() => client.receivedText.includes("id: 10\n"), "the held events");
  channel.publish({ step: 100 });
  const response = await client.response();
  expect(response.text).toBe(
    'event: gap\nid: 7\ndata: {"missedFrom":3,"resumedAt":8}\n\n' +
      'event: progress\nid: 8\ndata: {"step":8}\n\n' +
      'event: progress\nid: 9\ndata: {"step":9}\n\n' +
      'event: progress\nid: 10\ndata: {"step":10}\n\n' +
      'event: progress\nid: 11\ndata: {"step":100}\n\n',
  );
  await app.stop();
});

test("a stream too slow to keep up is told with a gap instead of buffering its backlog", async () => {
  const channel = new EventChannel<Progress>({ replayCapacity: 4, maxSubscribers: 10 });
  const app = createApp(channel);
  const server = listenQuietly(app);
  const chunks: string[] = [];
  let paused: import("bun").Socket<undefined> | undefined;
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port,
    socket: {
      data(_socket, data) {
        chunks.push(Buffer.from(data).toString("latin1"));
      },
      open(opened) {
        paused = opened;
      },
    },
  });
  socket.write("GET /events HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => channel.subscribers === 1, "the stream to wait");
  paused!.pause();
  // Fill the socket buffers with large events so the stream waits on its flush…
  const big = "x".repeat(60_000);
  const bigChannel = channel as unknown as EventChannel<{ step: number; pad?: string }>;
  let before = -1;
  let published = 0;
  while (server.stats().bytesOut !== before) {
    before = server.stats().bytesOut;
    bigChannel.publish({ step: 0, pad: big });
    published++;
    await Bun.sleep(30);
  }
  // …then publish more than the ring holds while it cannot read.
  for (let step = 1; step <= 10; step++) channel.publish({ step });
  channel.publish({ step: 100 });
  paused!.resume();
  await waitUntil(() => chunks.join("").includes('"step":100'), "the end of the stream", 10_000);
  const text = chunks.join("");
  expect(text).toContain("event: gap\n");
  expect(text).toContain('data: {"step":10}');
  expect(text.includes('data: {"step":5}')).toBe(false);
  expect(published).toBeGreaterThan(1);
  socket.terminate();
  await app.stop();
});

test("heartbeats on the Io clock; a resumed step re-checks the session and a revoked one ends it", async () => {
  const io = new ManualIo();
  const session = { valid: true };
  const channel = new EventChannel<Progress>({ replayCapacity: 8, maxSubscribers: 10 });
  const app = createApp(channel, { io, session });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => io.pendingTimers === 1, "the stream to wait");
  io.advance(10_000);
  await client.waitFor(() => client.receivedText.includes(": heartbeat\n\n"), "a heartbeat");
  session.valid = false;
  channel.publish({ step: 1 });
  const response = await client.response();
  // One comment from the heartbeat timer; the wake for event 1 ended the stream instead.
  expect(response.text).toBe(": heartbeat\n\n");
  await app.stop();
});

test("an event that cannot be encoded is skipped, logged and counted: every stream and every reconnect goes on past it", async () => {
  const channel = new EventChannel<{ text: string }>({ replayCapacity: 8, maxSubscribers: 10 });
  const logged: string[] = [];
  const app = new App({
    shared: {},
    log: { error: (...values: unknown[]) => logged.push(values.map(String).join(" ")) },
  });
  app.continuation(
    "GET",
    "/events",
    serverSentEvents(channel, { encode: (payload) => payload.text }),
  );
  const server = listenQuietly(app);
  const clients = [await RawClient.connect(server.port), await RawClient.connect(server.port)];
  for (const client of clients) client.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => channel.subscribers === 2, "both streams to wait");
  channel.publish({ text: "hello" });
  // A lone surrogate (a chat message parsed from JSON can carry one) is no UTF-8 text.
  channel.publish({ text: "bad \ud800 text" });
  channel.publish({ text: "after" });
  for (const client of clients) {
    await client.waitFor(() => client.receivedText.includes("data: after"), "the event after");
    expect(client.receivedText).toContain("id: 1\ndata: hello\n\n");
    expect(client.receivedText).toContain("id: 3\ndata: after\n\n");
    expect(client.receivedText).not.toContain("id: 2");
    client.destroy();
  }
  using reconnect = await RawClient.connect(server.port);
  reconnect.send("GET /events HTTP/1.1\r\nHost: h\r\nLast-Event-ID: 1\r\n\r\n");
  await reconnect.waitFor(() => reconnect.receivedText.includes("data: after"), "the replay");
  expect(reconnect.receivedText.startsWith("HTTP/1.1 200 OK\r\n")).toBe(true);
  expect([
    app.stats().handlerFailures,
    logged.filter((line) => line.includes("event 2 could not be sent and is skipped")).length,
  ]).toEqual([3, 3]);
  await app.stop({ graceMs: 100 });
});

test("a filtered stream on a busy channel still gets its heartbeat: other streams' events do not put it off", async () => {
  const io = new ManualIo();
  const channel = new EventChannel<{ job: number }>({ replayCapacity: 64, maxSubscribers: 10 });
  const app = new App({ shared: {}, io });
  app.continuation(
    "GET",
    "/events",
    serverSentEvents(channel, { filter: (_ctx, payload) => payload.job === 1, heartbeatMs: 200 }),
  );
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => channel.subscribers === 1, "the stream to wait");
  for (let tick = 0; tick < 8; tick++) {
    channel.publish({ job: 2 });
    await Bun.sleep(5);
    io.advance(50);
  }
  const heartbeats = () => client.receivedText.split(": heartbeat\n\n").length - 1;
  // One every 200 ms of the 400 ms without a write of its own.
  await client.waitFor(() => heartbeats() === 2, "two heartbeats");
  await Bun.sleep(20);
  expect([heartbeats(), client.receivedText.includes("data:")]).toEqual([2, false]);
  await app.stop({ graceMs: 100 });
});
