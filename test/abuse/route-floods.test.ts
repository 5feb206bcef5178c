import { expect, test } from "bun:test";
import { App, defaultLogLimits, ManualIo, WorkerPool } from "corral";
import { parseResponses, RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import type { FixtureRequest, FixtureResponse } from "../services/fixtures/jobs-worker.ts";
import { JobGate } from "../support/job-gate.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

// A route whose handlers wait (a pool job, a sleep, an upstream) is flooded while a side client
// asks another route. The flood's waits are held open by the test (a shut gate, a manual clock,
// an upstream that answers only when told), so the side answer cannot owe anything to the flood
// finishing: it must come from the default behaviour of the App.

const workers = 16;

async function connectAll(port: number, count: number): Promise<RawClient[]> {
  const clients: RawClient[] = [];
  for (let index = 0; index < count; index++) clients.push(await RawClient.connect(port));
  return clients;
}

function answered(client: RawClient): string | undefined {
  const response = parseResponses(client.received, client.closed)[0];
  return response === undefined ? undefined : `${response.status} ${response.text}`;
}

test("300 pool jobs awaited without options: the pool's bound is filled, the rest refused 503, and /ping served meanwhile", async () => {
  const threads = 2;
  const maxQueuedJobs = 64;
  const script = new URL("../services/fixtures/jobs-worker.ts", import.meta.url);
  await using pool = new WorkerPool<FixtureRequest, FixtureResponse>({
    script,
    threads,
    maxQueuedJobs,
  });
  using gate = new JobGate();
  // The refusals are logged within failureReportsPerSecond, the rest counted (not a stack each).
  const reports: unknown[][] = [];
  const log = { error: (...values: unknown[]) => void reports.push(values) };
  const started = performance.now();
  const app = new App({ shared: { pool }, limits: { workers }, log });
  app.route("POST", "/work", async (ctx) => {
    // The way most handlers are written: no context, no signal.
    const result = await ctx.shared.pool.run({ kind: "gate", gate: gate.buffer });
    ctx.response.text(200, result.value);
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  const flood = await connectAll(server.port, 300);
  try {
    for (const client of flood) {
      client.send("POST /work HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}");
    }
    await waitUntil(() => server.stats().requests === 300, "the flood to be parsed");
    // Asked again and again while no job can finish: each ping is answered.
    const pings: (string | undefined)[] = [];
    for (let round = 0; round < 3; round++) {
      using side = await RawClient.connect(server.port);
      side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
      await waitUntil(() => answered(side) !== undefined, "the ping to be answered");
      pings.push(answered(side));
    }
    const { busy, queued } = pool.stats();
    expect({ pings, busy, queued, queuedRequests: server.stats().queuedRequests }).toEqual({
      pings: ["200 pong", "200 pong", "200 pong"],
      busy: threads,
      queued: maxQueuedJobs,
      queuedRequests: 0,
    });
    gate.open();
    const tally: Record<string, number> = {};
    for (const { status, header } of await Promise.all(flood.map((client) => client.response()))) {
      const key = `${status} ${header("retry-after") ?? "-"}`;
      tally[key] = (tally[key] ?? 0) + 1;
    }
    const accepted = threads + maxQueuedJobs;
    expect(tally).toEqual({ "200 -": accepted, "503 1": 300 - accepted });
    await app.stop();
    const seconds = Math.ceil((performance.now() - started) / 1000);
    const full = reports.filter((values) => values.length === 2);
    const counted = reports
      .filter((values) => values.length === 1)
      .map((values) =>
        /^corral: (\d+) more failures \(503 after ServiceBusyError\)/.exec(String(values[0])),
      )
      .reduce((sum, match) => sum + Number(match![1]), 0);
    expect(full.every(([, error]) => (error as Error).name === "ServiceBusyError")).toBe(true);
    expect(full.length).toBeLessThanOrEqual(
      defaultLogLimits.failureReportsPerSecond * (seconds + 1),
    );
    expect(full.length + counted).toBe(300 - accepted);
  } finally {
    gate.open();
    for (const client of flood) client.destroy();
    await app.stop();
  }
}, 60_000);

test("200 handlers waiting on a timer of their own hold their workers, and the first one woken goes to another route", async () => {
  const io = new ManualIo();
  const app = new App({ shared: {}, io, limits: { workers }, log: null });
  // Request i waits 2 s + i ms, so the test wakes them one at a time. A plain timer, unlike
  // ctx.sleep, keeps the worker: the wait of a database query or an upstream call is like it.
  app.route("GET", "/slow/:index", async (ctx) => {
    const milliseconds = 2_000 + Number(ctx.params.index);
    await new Promise<void>((resolve) => io.setTimer(milliseconds, resolve));
    ctx.response.text(200, "slept");
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  const flood = await connectAll(server.port, 200);
  try {
    for (const [index, client] of flood.entries()) {
      client.send(`GET /slow/${index} HTTP/1.1\r\nHost: h\r\n\r\n`);
      // In order, so that request i is the i-th to take a worker.
      if (index < workers) await waitUntil(() => io.pendingTimers === index + 1, "a sleeper");
    }
    await waitUntil(() => server.stats().requests === 200, "the flood to be parsed");
    using side = await RawClient.connect(server.port);
    side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    await waitUntil(() => server.stats().requests === 201, "the ping to be queued");
    // Request 0 wakes and answers: its worker goes to the route holding none, then to the flood.
    io.advance(2_000);
    await waitUntil(
      () => answered(side) !== undefined && io.pendingTimers === workers,
      "the ping to be answered, then the next of the flood to sleep",
    );
    expect({
      ping: answered(side),
      first: answered(flood[0]!),
      next: answered(flood[workers]!),
    }).toEqual({
      ping: "200 pong",
      first: "200 slept",
      next: undefined,
    });
    const allAnswered = () => flood.every((client) => answered(client) !== undefined);
    while (!allAnswered()) {
      io.advance(10_000);
      await waitUntil(() => io.pendingTimers > 0 || allAnswered(), "the next wave to sleep");
    }
    const answers = await Promise.all(flood.map((client) => client.response()));
    expect(answers.filter((answer) => answer.text === "slept").length).toBe(200);
  } finally {
    for (const client of flood) client.destroy();
    await app.stop();
  }
}, 60_000);

test("200 handlers in ctx.sleep hold no worker: all of them sleep at once, and another route is served at once", async () => {
  const io = new ManualIo();
  const app = new App({ shared: {}, io, limits: { workers }, log: null });
  app.route("GET", "/slow", async (ctx) => {
    ctx.response.header("X-Slept", "yes");
    await ctx.sleep(2_000);
    ctx.response.text(200, "slept");
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  const flood = await connectAll(server.port, 200);
  try {
    for (const client of flood) client.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
    // Every handler sleeps at once, beyond the 16 workers: none holds one while asleep.
    await waitUntil(() => io.pendingTimers === 200, "all 200 handlers to sleep");
    expect(server.stats().workersBusy).toBe(0);
    using side = await RawClient.connect(server.port);
    side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    expect((await side.response()).text).toBe("pong");
    // They wake together and take workers back, 16 at a time, with what they drafted kept.
    io.advance(2_000);
    const answers = await Promise.all(flood.map((client) => client.response()));
    expect(answers.every((answer) => answer.text === "slept")).toBe(true);
    expect(answers.every((answer) => answer.header("x-slept") === "yes")).toBe(true);
  } finally {
    for (const client of flood) client.destroy();
    await app.stop();
  }
}, 60_000);
test("200 handlers awaiting a slow upstream hold their workers, and the first one freed goes to another route", async () => {
  const waiting: (() => void)[] = [];
  let upstreamRequests = 0;
  using upstream = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      upstreamRequests++;
      return new Promise<Response>((resolve) => {
        waiting.push(() => resolve(new Response("upstream")));
      });
    },
  });
  const app = new App({ shared: {}, limits: { workers }, log: null });
  app.route("GET", "/proxy", async (ctx) => {
    const reply = await fetch(`http://127.0.0.1:${upstream.port}/`);
    ctx.response.text(200, await reply.text());
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  const flood = await connectAll(server.port, 200);
  try {
    for (const client of flood) client.send("GET /proxy HTTP/1.1\r\nHost: h\r\n\r\n");
    await waitUntil(
      () => server.stats().requests === 200 && upstreamRequests === workers,
      "every worker waiting on the upstream and the rest of the flood queued",
    );
    using side = await RawClient.connect(server.port);
    side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    await waitUntil(() => server.stats().requests === 201, "the ping to be queued");
    // One upstream answer frees one worker: it goes to the route holding none, not to the flood.
    waiting.shift()!();
    await waitUntil(
      () => answered(side) !== undefined && upstreamRequests === workers + 1,
      "the ping to be answered, then the next of the flood to start",
    );
    const stats = server.stats();
    expect({
      ping: answered(side),
      upstreamRequests,
      fairDispatches: stats.fairDispatches,
    }).toEqual({ ping: "200 pong", upstreamRequests: workers + 1, fairDispatches: 1 });
    // The flood goes on and finishes as the upstream answers.
    const release = setInterval(() => {
      for (const resolve of waiting.splice(0)) resolve();
    }, 5);
    try {
      const answers = await Promise.all(flood.map((client) => client.response()));
      expect(answers.filter((answer) => answer.status === 200).length).toBe(200);
    } finally {
      clearInterval(release);
    }
  } finally {
    for (const resolve of waiting.splice(0)) resolve();
    for (const client of flood) client.destroy();
    await app.stop();
  }
}, 60_000);
