import { expect, test } from "bun:test";
import { App, WorkerPool } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import type { FixtureRequest, FixtureResponse } from "../services/fixtures/jobs-worker.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const script = new URL("../services/fixtures/jobs-worker.ts", import.meta.url);

test("a handler awaits a CPU-heavy job on the pool while other requests are served promptly", async () => {
  await using pool = new WorkerPool<FixtureRequest, FixtureResponse>({ script, threads: 1 });
  const app = new App({ shared: { pool } });
  app.route("GET", "/heavy", async (ctx) => {
    const result = await ctx.shared.pool.run({ kind: "spin", milliseconds: 600 });
    ctx.response.text(200, result.value);
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  using heavy = await RawClient.connect(server.port);
  heavy.send("GET /heavy HTTP/1.1\r\nHost: h\r\n\r\n");
  using pinger = await RawClient.connect(server.port);
  let pongs = 0;
  while (heavy.received.length === 0) {
    pinger.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    await pinger.responses(pongs + 1);
    pongs++;
  }
  const response = await heavy.response();
  expect(response.text).toBe("spun true");
  // A blocked loop would answer no ping until the job ended; a free one answers many.
  expect(pongs).toBeGreaterThan(20);
  await app.stop();
});

test("a full job queue answers 503 with Retry-After; the running job still completes", async () => {
  await using pool = new WorkerPool<FixtureRequest, FixtureResponse>({
    script,
    threads: 1,
    maxQueuedJobs: 0,
  });
  const app = new App({ shared: { pool } });
  app.route("GET", "/job", async (ctx) => {
    const result = await ctx.shared.pool.run({ kind: "spin", milliseconds: 200 });
    ctx.response.text(200, result.value);
  });
  const first = app.request("/job");
  while (pool.stats().busy === 0) await Bun.sleep(1);
  const refused = await app.request("/job");
  expect([refused.status, refused.headers.get("retry-after"), await refused.text()]).toEqual([
    503,
    "1",
    "Service Unavailable: busy, retry later\n",
  ]);
  expect(await (await first).text()).toBe("spun true");
  await app.stop();
});
