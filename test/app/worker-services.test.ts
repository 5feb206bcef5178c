import { expect, test } from "bun:test";
import { App, middleware, WorkerPool } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import type { FixtureRequest, FixtureResponse } from "../services/fixtures/jobs-worker.ts";
import { JobGate } from "../support/job-gate.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { recordOutcomes } from "../support/outcome-recorder.ts";

const script = new URL("../services/fixtures/jobs-worker.ts", import.meta.url);
const ping = "GET /ping HTTP/1.1\r\nHost: h\r\n\r\n";

function jobPool(threads: number, maxQueuedJobs?: number) {
  return new WorkerPool<FixtureRequest, FixtureResponse>({ script, threads, maxQueuedJobs });
}

/** An App on one engine worker whose middleware records each request's `path outcome`. */
function oneWorkerApp(pool: ReturnType<typeof jobPool>, outcomes: string[]) {
  return new App({ shared: { pool }, limits: { workers: 1 } }).use(recordOutcomes(outcomes));
}

test("a handler awaits a CPU-heavy job on the pool while other requests are served promptly", async () => {
  await using pool = jobPool(1);
  const app = new App({ shared: { pool } });
  app.route("GET", "/heavy", async (ctx) => {
    const result = await ctx.shared.pool.run({ kind: "spin", milliseconds: 600 }, { context: ctx });
    ctx.response.text(200, result.value);
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  using heavy = await RawClient.connect(server.port);
  heavy.send("GET /heavy HTTP/1.1\r\nHost: h\r\n\r\n");
  using pinger = await RawClient.connect(server.port);
  let pongs = 0;
  while (heavy.received.length === 0) {
    pinger.send(ping);
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
  await using pool = jobPool(1, 0);
  const app = new App({ shared: { pool } });
  app.route("GET", "/job", async (ctx) => {
    const result = await ctx.shared.pool.run({ kind: "spin", milliseconds: 200 }, { context: ctx });
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

test("awaiting a job gives the engine worker back: one worker serves others, drafted headers stay", async () => {
  await using pool = jobPool(1);
  using gate = new JobGate();
  const app = new App({ shared: { pool }, limits: { workers: 1 } }).use(
    middleware({
      before(ctx) {
        // Each request drafts its own value, into whichever engine worker it holds.
        ctx.response.header("X-Request-Id", ctx.request.path);
      },
    }),
  );
  app.route("GET", "/job", async (ctx) => {
    const result = await ctx.shared.pool.run({ kind: "gate", gate: gate.buffer }, { context: ctx });
    ctx.response.header("X-After", "yes");
    ctx.response.text(200, result.value);
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  using waiting = await RawClient.connect(server.port);
  waiting.send("GET /job HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => pool.stats().busy === 1, "the job to start");
  using side = await RawClient.connect(server.port);
  side.send(ping);
  const pong = await side.response();
  const during = {
    pong: [pong.text, pong.header("x-request-id")],
    workersBusy: server.stats().workersBusy,
  };
  gate.open();
  const answer = await waiting.response();
  expect({
    during,
    answer: [answer.status, answer.text, answer.header("x-request-id"), answer.header("x-after")],
  }).toEqual({
    during: { pong: ["pong", "/ping"], workersBusy: 0 },
    answer: [200, "gate opened", "/job", "yes"],
  });
  await app.stop();
});

test("a client that leaves while its job is queued: the job is withdrawn and cleanup sees aborted", async () => {
  await using pool = jobPool(1);
  using gate = new JobGate();
  const outcomes: string[] = [];
  const app = oneWorkerApp(pool, outcomes);
  app.route("GET", "/job", async (ctx) => {
    const result = await ctx.shared.pool.run({ kind: "gate", gate: gate.buffer }, { context: ctx });
    ctx.response.text(200, result.value);
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  using running = await RawClient.connect(server.port);
  running.send("GET /job HTTP/1.1\r\nHost: h\r\n\r\n");
  const leaving = await RawClient.connect(server.port);
  leaving.send("GET /job HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => pool.stats().queued === 1, "the second job to queue");
  leaving.destroy();
  await waitUntil(() => outcomes.length === 1, "the cleanup of the client that left");
  const { queued, aborted } = pool.stats();
  using side = await RawClient.connect(server.port);
  side.send(ping);
  const pong = await side.response();
  gate.open();
  const answer = await running.response();
  await waitUntil(() => outcomes.length === 3, "every cleanup");
  expect({ queued, aborted, pong: pong.text, answer: answer.text, outcomes }).toEqual({
    queued: 0,
    aborted: 1,
    pong: "pong",
    answer: "gate opened",
    outcomes: ["/job aborted", "/ping success", "/job success"],
  });
  await app.stop();
});

test("a finished job waits for a worker ahead of new requests; a client gone meanwhile is aborted", async () => {
  await using pool = jobPool(2);
  using gate = new JobGate();
  const order: string[] = [];
  const outcomes: string[] = [];
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  const app = oneWorkerApp(pool, outcomes);
  app.route("GET", "/job/:name", async (ctx) => {
    const name = ctx.params.name;
    await ctx.shared.pool.run({ kind: "gate", gate: gate.buffer }, { context: ctx });
    order.push(name);
    ctx.response.text(200, name);
  });
  app.route("GET", "/hold", async (ctx) => {
    await held;
    ctx.response.text(200, "held");
  });
  app.route("GET", "/ping", (ctx) => {
    order.push("ping");
    ctx.response.text(200, "pong");
  });
  const server = listenQuietly(app);
  using staying = await RawClient.connect(server.port);
  staying.send("GET /job/staying HTTP/1.1\r\nHost: h\r\n\r\n");
  const leaving = await RawClient.connect(server.port);
  leaving.send("GET /job/leaving HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => pool.stats().busy === 2, "both jobs to start");
  using holder = await RawClient.connect(server.port);
  holder.send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().workersBusy === 1, "the only worker to be held");
  gate.open();
  await waitUntil(() => pool.stats().completed === 2, "both jobs to finish");
  using side = await RawClient.connect(server.port);
  side.send(ping);
  await waitUntil(() => server.stats().queuedRequests === 1, "the ping to queue");
  leaving.destroy();
  await waitUntil(() => outcomes.length === 1, "the cleanup of the client that left");
  release();
  const answers = await Promise.all([staying, holder, side].map((client) => client.response()));
  await waitUntil(() => outcomes.length === 4, "every cleanup");
  expect({ answers: answers.map((answer) => answer.text), order, outcomes }).toEqual({
    answers: ["staying", "held", "pong"],
    order: ["staying", "ping"],
    outcomes: ["/job/leaving aborted", "/hold success", "/job/staying success", "/ping success"],
  });
  await app.stop();
});

test("the request body goes with the worker: read before the job it is there, after it a TypeError", async () => {
  await using pool = jobPool(1);
  const app = new App({ shared: { pool } });
  app.route("POST", "/before", async (ctx) => {
    const text = ctx.request.text();
    const form = ctx.request.form();
    await ctx.shared.pool.run({ kind: "echo", value: text }, { context: ctx });
    ctx.response.text(200, `${text} ${form.firstRaw("a")?.valueRaw}`);
  });
  app.route("POST", "/after", async (ctx) => {
    await ctx.shared.pool.run({ kind: "echo", value: "x" }, { context: ctx });
    ctx.response.text(200, ctx.request.text());
  });
  const messages: string[] = [];
  app.onError((error) => {
    messages.push(String(error));
  });
  const form = { "Content-Type": "application/x-www-form-urlencoded" };
  const before = await app.request("/before", { method: "POST", headers: form, body: "a=1" });
  const after = await app.request("/after", { method: "POST", headers: form, body: "a=1" });
  expect([before.status, await before.text(), after.status, messages]).toEqual([
    200,
    "a=1 1",
    500,
    [
      "TypeError: corral: the request body went with the engine worker; read it before awaiting off the worker",
    ],
  ]);
  await app.stop();
});

test("several jobs awaited together: one refused at once is still answered 503", async () => {
  await using pool = jobPool(1, 0);
  using gate = new JobGate();
  const app = new App({ shared: { pool } });
  app.route("GET", "/two", async (ctx) => {
    const jobs = [0, 1].map(() =>
      ctx.shared.pool.run({ kind: "gate", gate: gate.buffer }, { context: ctx }),
    );
    await Promise.all(jobs);
    ctx.response.text(200, "both");
  });
  const refused = await app.request("/two");
  const answer = [refused.status, refused.headers.get("retry-after"), await refused.text()];
  gate.open();
  await waitUntil(() => pool.stats().completed === 1, "the accepted job to finish");
  expect({ answer, stats: pool.stats() }).toMatchObject({
    answer: [503, "1", "Service Unavailable: busy, retry later\n"],
    stats: { completed: 1, rejectedBusy: 1 },
  });
  await app.stop();
});
