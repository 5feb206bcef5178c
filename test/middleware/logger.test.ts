import { expect, test } from "bun:test";
import { App, HttpError } from "corral";
import { logger, type RequestLogLine, requestId } from "corral/middleware";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

function collector() {
  const lines: RequestLogLine[] = [];
  const sink = (text: string) => {
    for (const line of text.split("\n")) if (line !== "") lines.push(JSON.parse(line));
  };
  return { lines, sink };
}

test("one JSON line per request: success, errors, a client that left and a deadline", async () => {
  const { lines, sink } = collector();
  const log = logger({ sink });
  const app = new App({ shared: {}, log: null, limits: { requestDeadlineMs: 300 } })
    .use(requestId({ generate: () => "id-1" }))
    .use(log);
  app.post("/echo", (ctx) => ctx.response.text(201, ctx.request.text()));
  app.get("/bad", () => {
    throw new HttpError(400, "bad");
  });
  app.get("/boom", () => {
    throw new Error("broken");
  });
  app.get("/slow", (ctx) => ctx.sleep(10_000));
  const server = listenQuietly(app);
  const base = `http://127.0.0.1:${server.port}`;
  await fetch(`${base}/echo?secret=1`, { method: "POST", body: "hello" });
  await fetch(`${base}/bad`);
  await fetch(`${base}/boom`);
  await fetch(`${base}/missing`);
  {
    using client = await RawClient.connect(server.port);
    client.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
    await waitUntil(() => app.stats().requests >= 5, "the slow request to start");
  }
  await waitUntil(() => lines.length === 5, "the aborted request's line");
  using timedOut = await RawClient.connect(server.port);
  timedOut.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => lines.length === 6, "the timed-out request's line");
  const summary = lines.map(
    ({ level, reqId, method, path, status, bytesIn, bytesOut, outcome }) => ({
      level,
      reqId,
      method,
      path,
      status,
      bytesIn,
      bytesOut,
      outcome,
    }),
  );
  expect(summary).toEqual([
    {
      level: "info",
      reqId: "id-1",
      method: "POST",
      path: "/echo",
      status: 201,
      bytesIn: 5,
      bytesOut: 5,
      outcome: "success",
    },
    {
      level: "info",
      reqId: "id-1",
      method: "GET",
      path: "/bad",
      status: 400,
      bytesIn: 0,
      bytesOut: 4,
      outcome: "error",
    },
    {
      level: "error",
      reqId: "id-1",
      method: "GET",
      path: "/boom",
      status: 500,
      bytesIn: 0,
      bytesOut: 22,
      outcome: "error",
    },
    {
      level: "info",
      reqId: "id-1",
      method: "GET",
      path: "/missing",
      status: 404,
      bytesIn: 0,
      bytesOut: 10,
      outcome: "success",
    },
    {
      level: "warn",
      reqId: "id-1",
      method: "GET",
      path: "/slow",
      status: null,
      bytesIn: 0,
      bytesOut: null,
      outcome: "aborted",
    },
    {
      level: "warn",
      reqId: "id-1",
      method: "GET",
      path: "/slow",
      status: null,
      bytesIn: 0,
      bytesOut: null,
      outcome: "timeout",
    },
  ]);
  expect(lines.every((line) => line.remoteAddress === "127.0.0.1" && line.durationMs >= 0)).toBe(
    true,
  );
  expect(lines.every((line) => !Number.isNaN(Date.parse(line.time)))).toBe(true);
  // ISO 8601 to the millisecond, and the time of the request (it is formatted once a millisecond).
  expect(lines.every((line) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(line.time))).toBe(
    true,
  );
  expect(lines.every((line) => Math.abs(Date.parse(line.time) - Date.now()) < 10_000)).toBe(true);
  expect(log.stats()).toEqual({ written: 6, dropped: 0, queued: 0 });
  await app.stop();
});

test("a slow sink never holds requests: lines past maxQueuedLines are dropped and counted", async () => {
  let release: () => void = () => {};
  let calls = 0;
  const log = logger({
    maxQueuedLines: 2,
    sink: () => {
      calls++;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    },
  });
  const app = new App({ shared: {} }).use(log);
  app.get("/", (ctx) => ctx.response.text(200, "ok"));
  expect((await app.request("/")).status).toBe(200);
  await waitUntil(() => calls === 1, "the sink to take the first line");
  const statuses = [];
  for (let index = 0; index < 4; index++) statuses.push((await app.request("/")).status);
  expect(statuses).toEqual([200, 200, 200, 200]);
  expect(log.stats()).toEqual({ written: 0, dropped: 2, queued: 2 });
  release();
  await waitUntil(() => calls === 2, "the queued lines");
  release();
  await waitUntil(() => log.stats().written === 3, "the lines written");
  expect(log.stats()).toEqual({ written: 3, dropped: 2, queued: 0 });
  await app.stop();
});

test("bytesOut counts what a stream wrote, also when the handler returned before its end", async () => {
  const { lines, sink } = collector();
  const app = new App({ shared: {}, log: null }).use(logger({ sink }));
  app.get("/stream", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("x".repeat(3000));
    await writer.flush();
    await writer.writeAll("y".repeat(17));
  });
  app.get("/drafted", (ctx) => ctx.response.text(200, "12345"));
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\nGET /drafted HTTP/1.1\r\nHost: h\r\n\r\n");
  const [streamed, drafted] = await client.responses(2);
  expect([streamed!.text.length, drafted!.text]).toEqual([3017, "12345"]);
  await waitUntil(() => lines.length === 2, "both log lines");
  expect(lines.map((line) => [line.path, line.bytesOut])).toEqual([
    ["/stream", 3017],
    ["/drafted", 5],
  ]);
  await app.stop();
});
