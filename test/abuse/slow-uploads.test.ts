import { expect, test } from "bun:test";
import { App, type AppLimits } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

// Uploads that trickle a byte now and then: a streamed body's deadline counts from the last
// progress, and a body read whole has `bodyDeadlineMs` (30 s) to come, so before, as many of
// them as there are workers held every worker and a side client got a 503 at its request
// deadline. While requests wait, slow uploads may hold `slowUploadWorkersPercent` (25) of the
// workers: past it, the one waiting longest gets a 408.

function uploadApp(limits: Partial<AppLimits>) {
  const app = new App({ shared: {}, limits: { workers: 4, requestDeadlineMs: 2_000, ...limits } });
  app.route(
    "POST",
    "/upload",
    async (ctx) => {
      let total = 0;
      for await (const piece of ctx.request.bodyStream()) total += piece.length;
      ctx.response.text(200, `got ${total}`);
    },
    { body: "stream" },
  );
  app.route("POST", "/whole", (ctx) => ctx.response.text(200, `got ${ctx.request.body.length}`));
  app.get("/ping", (ctx) => ctx.response.text(200, "pong"));
  return app;
}

async function trickle(port: number, count: number, path = "/upload") {
  const clients: RawClient[] = [];
  for (let index = 0; index < count; index++) {
    const client = await RawClient.connect(port);
    client.send(`POST ${path} HTTP/1.1\r\nHost: h\r\nContent-Length: 1000000\r\n\r\nx`);
    clients.push(client);
  }
  const timer = setInterval(() => {
    for (const client of clients) if (!client.closed) client.send("x");
  }, 100);
  return { clients, stop: () => clearInterval(timer) };
}

test.each([
  ["streamed", "/upload"],
  ["read whole", "/whole"],
])(
  "4 trickling uploads (%s) on 4 workers: a side request gets a worker at once, the upload waiting longest a 408",
  async (_kind, path) => {
    const app = uploadApp({});
    const server = listenQuietly(app);
    const uploads = await trickle(server.port, 4, path);
    await waitUntil(() => app.stats().workersHeldBySlowUploads === 4, "4 uploads waiting");
    using side = await RawClient.connect(server.port);
    side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    const answer = await side.response(1_500);
    expect([answer.statusLine, answer.text]).toEqual(["HTTP/1.1 200 OK", "pong"]);
    const closed = uploads.clients.filter((client) => client.receivedText.length > 0);
    expect(closed.map((client) => client.receivedText.split("\r\n")[0])).toEqual([
      "HTTP/1.1 408 Request Timeout",
    ]);
    expect(app.stats().slowUploadCloses).toBe(1);
    uploads.stop();
    for (const client of uploads.clients) client.destroy();
    await app.stop({ graceMs: 100 });
  },
);

test("slowUploadWorkersPercent 100 lets slow uploads hold every worker: the side request waits and gets the 503", async () => {
  const app = uploadApp({ slowUploadWorkersPercent: 100 });
  const server = listenQuietly(app);
  const uploads = await trickle(server.port, 4);
  await waitUntil(() => app.stats().workersHeldBySlowUploads === 4, "4 uploads waiting");
  using side = await RawClient.connect(server.port);
  side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
  expect((await side.response(5_000)).statusLine).toBe("HTTP/1.1 503 Service Unavailable");
  expect(app.stats().slowUploadCloses).toBe(0);
  uploads.stop();
  for (const client of uploads.clients) client.destroy();
  await app.stop({ graceMs: 100 });
}, 15_000);

test("steady uploads are never closed for holding their workers, however many requests wait; a trickling one is", async () => {
  // Real uploads wait on their clients most of the time: judged only by how long they waited,
  // a burst of them on all the workers was cut down one by one for the uploads queued behind
  // it. Only an upload behind minUploadBytesPerSecond (4 KiB/s) after its first second is slow.
  const app = uploadApp({ requestDeadlineMs: 10_000 });
  const server = listenQuietly(app);
  const size = 200_000;
  const trickler = await trickle(server.port, 1, "/whole");
  await waitUntil(
    () => app.stats().workersHeldBySlowUploads === 1,
    "the trickler to hold a worker",
  );
  const steady: RawClient[] = [];
  for (let index = 0; index < 5; index++) {
    const client = await RawClient.connect(server.port);
    client.send(`POST /whole HTTP/1.1\r\nHost: h\r\nContent-Length: ${size}\r\n\r\n`);
    steady.push(client);
  }
  // About 100 KB/s each: 2,000 bytes every 20 ms, for 2 s.
  let sent = 0;
  const timer = setInterval(() => {
    for (const client of steady) if (!client.closed) client.send("y".repeat(2_000));
    sent += 2_000;
    if (sent >= size) clearInterval(timer);
  }, 20);
  using side = await RawClient.connect(server.port);
  side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
  expect((await side.response(3_000)).text).toBe("pong");
  const answers = await Promise.all(steady.map((client) => client.response(10_000)));
  expect(answers.map((answer) => answer.text)).toEqual(Array(5).fill(`got ${size}`));
  expect(trickler.clients[0]!.receivedText.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
  expect(app.stats().slowUploadCloses).toBe(1);
  trickler.stop();
  for (const client of [...steady, ...trickler.clients]) client.destroy();
  await app.stop({ graceMs: 100 });
}, 20_000);
