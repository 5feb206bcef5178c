import { expect, test } from "bun:test";
import { App, type AppLimits } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

// Streamed uploads that trickle a byte now and then: the body deadline counts from the last
// progress, so before, as many of them as there are workers held every worker and a side
// client got a 503 at its request deadline. While requests wait, slow uploads may hold
// `slowUploadWorkersPercent` (25) of the workers: past it, the one waiting longest gets a 408.

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
  app.get("/ping", (ctx) => ctx.response.text(200, "pong"));
  return app;
}

async function trickle(port: number, count: number) {
  const clients: RawClient[] = [];
  for (let index = 0; index < count; index++) {
    const client = await RawClient.connect(port);
    client.send("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 1000000\r\n\r\nx");
    clients.push(client);
  }
  const timer = setInterval(() => {
    for (const client of clients) if (!client.closed) client.send("x");
  }, 100);
  return { clients, stop: () => clearInterval(timer) };
}

test("4 trickling uploads on 4 workers: a side request gets a worker at once, the upload waiting longest a 408", async () => {
  const app = uploadApp({});
  const server = listenQuietly(app);
  const uploads = await trickle(server.port, 4);
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
});

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
