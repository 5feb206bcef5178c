import { expect, test } from "bun:test";
import { App, defaultWorkerPoolLimits, WorkerPool } from "corral";
import { defaultLimits } from "corral/engine";
import { parseResponses, RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import type { FixtureRequest, FixtureResponse } from "../services/fixtures/jobs-worker.ts";
import { JobGate } from "../support/job-gate.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const script = new URL("../services/fixtures/jobs-worker.ts", import.meta.url);
const floodSize = 300;
const threads = 2;
// Jobs the pool takes at once with its default queue: one per thread, the rest queued.
const accepted = threads + defaultWorkerPoolLimits.maxQueuedJobs;

test("a flood of pool jobs is refused past the pool's bound while a route without the pool is served", async () => {
  // The flood outnumbers the engine's workers, and the pool's bound exceeds them too: awaiting
  // a job must not hold an engine worker, or the pool never fills and everything else queues.
  expect(floodSize).toBeGreaterThan(defaultLimits.workers);
  expect(accepted).toBeGreaterThan(defaultLimits.workers);
  await using pool = new WorkerPool<FixtureRequest, FixtureResponse>({ script, threads });
  // Declared after the pool, so it is disposed (opened) before the pool drains its jobs.
  using gate = new JobGate();
  // Each refused job is a logged 503: silenced here, where hundreds are the point.
  const app = new App({ shared: { pool }, log: null });
  app.route("GET", "/job", async (ctx) => {
    const job = { kind: "gate", gate: gate.buffer } as const;
    const result = await ctx.shared.pool.run(job, { context: ctx });
    ctx.response.text(200, result.value);
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  const flood: RawClient[] = [];
  using side = await RawClient.connect(server.port);
  try {
    for (let index = 0; index < floodSize; index++) {
      flood.push(await RawClient.connect(server.port));
    }
    for (const client of flood) client.send("GET /job HTTP/1.1\r\nHost: h\r\n\r\n");
    side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    const pinged = () => parseResponses(side.received, side.closed)[0];
    let peakQueuedRequests = 0;
    // Every request of the flood (and the ping) has been parsed, and either the ping was
    // answered or requests wait in the engine's queue, which is how the flood used to win.
    await waitUntil(() => {
      const stats = server.stats();
      peakQueuedRequests = Math.max(peakQueuedRequests, stats.queuedRequests);
      return (
        stats.requests === floodSize + 1 && (pinged() !== undefined || stats.queuedRequests > 0)
      );
    }, "the flood to be parsed and the ping answered or queued");
    const { busy, queued, rejectedBusy, completed } = pool.stats();
    const ping = pinged();
    // The gate is still shut: no job has finished, so the ping was served during the flood.
    expect({
      ping: ping === undefined ? "not answered" : `${ping.status} ${ping.text}`,
      peakQueuedRequests,
      pool: { busy, queued, rejectedBusy, completed },
    }).toEqual({
      ping: "200 pong",
      peakQueuedRequests: 0,
      pool: {
        busy: threads,
        queued: defaultWorkerPoolLimits.maxQueuedJobs,
        rejectedBusy: floodSize - accepted,
        completed: 0,
      },
    });
    gate.open();
    const answers = await Promise.all(flood.map((client) => client.response()));
    const tally: Record<string, number> = {};
    for (const { status, text, header } of answers) {
      const key = `${status} ${header("retry-after") ?? "-"} ${text.trim()}`;
      tally[key] = (tally[key] ?? 0) + 1;
    }
    expect({ tally, completed: pool.stats().completed }).toEqual({
      tally: {
        "200 - gate opened": accepted,
        "503 1 Service Unavailable: busy, retry later": floodSize - accepted,
      },
      completed: accepted,
    });
  } finally {
    gate.open();
    for (const client of flood) client.destroy();
    await app.stop();
  }
});

test("clients that leave mid-job cost no new thread: after 40 aborted jobs the pool runs on the same threads, and a side client is served", async () => {
  // Starting a thread costs milliseconds of CPU: when every abort replaced the running job's
  // thread, clients connecting, asking for a job and leaving made the server start threads at
  // their rate (832 aborts in 5 s took 9 s of server CPU against 0.7 s for the same flood
  // staying). An aborted job is now told by its signal and keeps its thread within
  // `cancelGraceMs`.
  await using pool = new WorkerPool<FixtureRequest, FixtureResponse>({ script, threads });
  let gate = new JobGate();
  const app = new App({ shared: { pool }, log: null });
  app.route("GET", "/job/:kind", async (ctx) => {
    const job: FixtureRequest =
      ctx.params.kind === "polite"
        ? { kind: "hangUntilCancelled" }
        : ctx.params.kind === "sleep"
          ? { kind: "sleep", milliseconds: 50 }
          : { kind: "gate", gate: gate.buffer };
    const result = await ctx.shared.pool.run(job, { context: ctx });
    ctx.response.text(200, String(result.threadId));
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  /** The threads that run two jobs held at once: one on each thread. */
  const threadIds = async () => {
    gate = new JobGate();
    const clients = [await RawClient.connect(server.port), await RawClient.connect(server.port)];
    for (const client of clients) client.send("GET /job/gate HTTP/1.1\r\nHost: h\r\n\r\n");
    await waitUntil(() => pool.stats().busy === threads, "both threads to hold a gated job");
    gate.open();
    const answers = await Promise.all(clients.map((client) => client.response()));
    for (const client of clients) client.destroy();
    return answers.map((answer) => answer.text).sort();
  };
  const before = await threadIds();
  using side = await RawClient.connect(server.port);
  for (let round = 0; round < 10; round++) {
    const kind = round % 2 === 0 ? "polite" : "sleep";
    const leaving: RawClient[] = [];
    for (let index = 0; index < 4; index++) {
      const client = await RawClient.connect(server.port);
      client.send(`GET /job/${kind} HTTP/1.1\r\nHost: h\r\n\r\n`);
      leaving.push(client);
    }
    await waitUntil(() => pool.stats().busy === threads, "the jobs to run");
    for (const client of leaving) client.destroy();
    await waitUntil(() => pool.stats().aborted === 4 * (round + 1), "the jobs to be aborted");
    side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    expect((await side.responses(round + 1)).at(-1)!.text).toBe("pong");
  }
  await waitUntil(() => pool.stats().busy === 0, "the aborted jobs to end");
  const after = await threadIds();
  expect({ before, after, stats: pool.stats() }).toMatchObject({
    after: before,
    stats: { threads, aborted: 40, crashed: 0, threadsReplacedAfterAbort: 0, retiring: 0 },
  });
  await app.stop();
}, 30_000);
