import { expect, spyOn, test } from "bun:test";
import { ManualIo } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import {
  type ContinuationsOptions,
  createContinuationsApp,
} from "../../examples/continuations/continuations-app.ts";
import { startExample } from "./support/start-example.ts";

/** The body of `GET /stats`. */
interface ExampleStats {
  readonly workers: number;
  readonly workersBusy: number;
  readonly peakWorkersBusy: number;
  readonly queuedRequests: number;
  readonly connectionsOpen: number;
  readonly streamsOpen: number;
  readonly messages: number;
}

function startApp(options: ContinuationsOptions = {}) {
  const app = createContinuationsApp(options);
  const quiet = spyOn(console, "log").mockImplementation(() => {});
  const server = app.listen({ port: 0 });
  quiet.mockRestore();
  return { app, server, [Symbol.asyncDispose]: () => app.stop() };
}

/** One message frame exactly as the stream encodes it. */
function frame(id: number, text = `message ${id}`): string {
  return `id: ${id}\n${text
    .split("\n")
    .map((line) => `data: ${line}\n`)
    .join("")}\n`;
}

/** One HTTP/1.1 chunk (RFC 9112 §7.1) holding `text`. */
function chunk(text: string): string {
  return `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
}

function bodyBytes(client: RawClient): string {
  const text = client.receivedText;
  return text.slice(text.indexOf("\r\n\r\n") + 4);
}

async function post(app: ReturnType<typeof createContinuationsApp>, text: string | Uint8Array) {
  return app.request("/messages", { method: "POST", body: text });
}

function streamRequest(query = "", lastEventId?: number): string {
  const resume = lastEventId === undefined ? "" : `Last-Event-ID: ${lastEventId}\r\n`;
  return `GET /messages/stream${query} HTTP/1.1\r\nHost: h\r\n${resume}\r\n`;
}

test('a stream behind by more than a batch answers "flush" batch by batch, then "wait"s without a worker', async () => {
  await using running = startApp({ batchSize: 2 });
  const { app, server } = running;
  for (let id = 1; id <= 5; id++)
    expect(await (await post(app, `message ${id}`)).json()).toEqual({ id });
  using client = await RawClient.connect(server.port);
  client.send(streamRequest("", 0));
  await client.waitFor(() => client.receivedText.includes(frame(5)), "the backlog");
  expect(client.receivedText.replace(/\r\nDate: [^\r]+/, "")).toBe(
    "HTTP/1.1 200 OK\r\nCache-Control: no-cache\r\n" +
      "Content-Type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n" +
      // "flush" after each full batch: every batch is its own chunk.
      chunk(frame(1) + frame(2)) +
      chunk(frame(3) + frame(4)) +
      chunk(frame(5)),
  );
  await waitUntil(() => server.stats().workersBusy === 0, "the stream to wait");
  expect(app.shared.room.subscribers).toBe(1);
  await post(app, "one\ntwo");
  await client.waitFor(() => client.receivedText.includes(frame(6, "one\ntwo")), "message 6");
  expect(bodyBytes(client).endsWith(chunk(frame(6, "one\ntwo")))).toBe(true);
});

test('"finish" after ?count= messages or at message ?until=, whichever comes first', async () => {
  await using running = startApp({ batchSize: 2 });
  const { app } = running;
  for (let id = 1; id <= 6; id++) await post(app, `message ${id}`);
  const read = async (query: string, lastEventId?: number) => {
    const headers: Record<string, string> =
      lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) };
    return (await app.request(`/messages/stream${query}`, { headers })).text();
  };
  expect([
    await read("?count=3", 0),
    await read("?until=4", 0),
    await read("?count=5&until=2", 1),
    await read("?count=999999999&until=1", 0),
    await read("?until=3"),
  ]).toEqual([
    frame(1) + frame(2) + frame(3),
    frame(1) + frame(2) + frame(3) + frame(4),
    frame(2),
    frame(1),
    // Started at message 6, already past 3: nothing to send.
    "",
  ]);
  // A bad ?count= or ?until= is refused before the stream starts.
  const badCounts = [];
  for (const query of ["?count=0", "?count=abc", "?until=1000000000", "?count=%31"]) {
    const response = await app.request(`/messages/stream${query}`);
    badCounts.push(`${response.status} ${await response.text()}`);
  }
  expect(badCounts).toEqual([
    "400 Bad Request: count must be a whole number from 1 to 999999999\n",
    "400 Bad Request: count must be a whole number from 1 to 999999999\n",
    "400 Bad Request: until must be a whole number from 1 to 999999999\n",
    "400 Bad Request: count must be a whole number from 1 to 999999999\n",
  ]);
  expect(app.shared.room.subscribers).toBe(0);
});

test("a Last-Event-ID the room no longer holds gets a gap event, then the oldest messages held", async () => {
  await using running = startApp({ roomCapacity: 4 });
  const { app } = running;
  for (let id = 1; id <= 10; id++) await post(app, `message ${id}`);
  const response = await app.request("/messages/stream?count=4", {
    headers: { "last-event-id": "2" },
  });
  expect(await response.text()).toBe(
    'event: gap\nid: 6\ndata: {"missedFrom":3,"resumedAt":7}\n\n' +
      frame(7) +
      frame(8) +
      frame(9) +
      frame(10),
  );
});

test("a keep-alive comment follows heartbeatMs of silence on the App's clock, not every empty wake", async () => {
  const io = new ManualIo();
  await using running = startApp({ io, heartbeatMs: 1000 });
  const { app, server } = running;
  using client = await RawClient.connect(server.port);
  client.send(streamRequest());
  await client.waitFor(() => client.receivedText.includes("\r\n\r\n"), "the head");
  await waitUntil(() => io.pendingTimers === 1, "the stream to wait");
  io.advance(500);
  // A wake with nothing to send writes nothing; the next heartbeat is due after a full wait.
  app.shared.room.notifier.notify();
  await waitUntil(() => io.pendingTimers === 1, "the stream to wait again");
  io.advance(1000);
  await client.waitFor(() => client.receivedText.includes(": keep-alive\n\n"), "the heartbeat");
  await post(app, "hello");
  await client.waitFor(() => client.receivedText.includes(frame(1, "hello")), "the message");
  await waitUntil(() => io.pendingTimers === 1, "the next wait");
  io.advance(1000);
  await client.waitFor(() => bodyBytes(client).endsWith(chunk(": keep-alive\n\n")), "a second");
  expect(bodyBytes(client)).toBe(
    chunk(": keep-alive\n\n") + chunk(frame(1, "hello")) + chunk(": keep-alive\n\n"),
  );
});

test("limits: maxStreams streams, then 503; a message of exactly maxMessageBytes, then 413", async () => {
  await using running = startApp({ maxStreams: 2, maxMessageBytes: 1024 });
  const { app, server } = running;
  using first = await RawClient.connect(server.port);
  using second = await RawClient.connect(server.port);
  for (const client of [first, second]) client.send(streamRequest());
  await waitUntil(() => app.shared.room.subscribers === 2, "two streams");
  using third = await RawClient.connect(server.port);
  third.send(streamRequest());
  const refused = await third.response();
  expect([refused.status, refused.header("retry-after"), refused.text]).toEqual([
    503,
    "1",
    "Service Unavailable: too many open streams\n",
  ]);
  const exact = await post(app, "x".repeat(1024));
  const over = await post(app, "x".repeat(1025));
  const empty = await post(app, "");
  const notUtf8 = await post(app, new Uint8Array([0xff]));
  expect([exact.status, over.status, empty.status, notUtf8.status]).toEqual([201, 413, 400, 400]);
  expect(await empty.text()).toBe("Bad Request: empty message\n");
});

test("bun run example continuations: 200 streams on 4 workers each receive every message", async () => {
  await using example = await startExample("continuations");
  const stats = async () =>
    (await (await fetch(new URL("/stats", example.baseUrl))).json()) as ExampleStats;
  const clients = await Promise.all(
    Array.from({ length: 200 }, () => RawClient.connect(example.port)),
  );
  for (const client of clients) client.send(streamRequest("?count=5"));
  // The head goes out after the first step, once the stream's cursor is set.
  for (const client of clients) {
    await client.waitFor(() => client.receivedText.includes("\r\n\r\n"), "the stream's head");
  }
  const open = await stats();
  // Every stream is open and none waits for a worker: waiting streams hold none.
  expect(open).toMatchObject({ workers: 4, streamsOpen: 200, queuedRequests: 0, messages: 0 });
  expect(open.connectionsOpen).toBeGreaterThanOrEqual(200);
  const texts = ["first", "second\nline", "third", "fourth", "fifth"];
  const busy: number[] = [];
  for (const text of texts) {
    using poster = await RawClient.connect(example.port);
    const body = Buffer.from(text);
    poster.send(
      `POST /messages HTTP/1.1\r\nHost: h\r\nContent-Length: ${body.length}\r\n\r\n${text}`,
    );
    const created = await poster.response();
    expect([created.statusLine, created.header("content-type")]).toEqual([
      "HTTP/1.1 201 Created",
      "application/json",
    ]);
    busy.push((await stats()).workersBusy);
  }
  const expected = texts.map((text, index) => frame(index + 1, text)).join("");
  const bodies = await Promise.all(clients.map(async (client) => (await client.response()).text));
  expect(bodies.filter((body) => body === expected).length).toBe(200);
  const after = await stats();
  expect([Math.max(...busy) <= 4, after.peakWorkersBusy <= 4, after.streamsOpen]).toEqual([
    true,
    true,
    0,
  ]);
  for (const client of clients) client.destroy();
});
