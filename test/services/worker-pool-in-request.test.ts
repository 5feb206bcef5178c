import { expect, test } from "bun:test";
import { App, WorkerPool } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { JobGate } from "../support/job-gate.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import type { FixtureRequest, FixtureResponse } from "./fixtures/jobs-worker.ts";

// `pool.run(job)` called from a handler without options: the form most handlers use.

const script = new URL("./fixtures/jobs-worker.ts", import.meta.url);

/** An App whose log lines are kept, so a test can show that no request failed. */
function appWithLog(pool: WorkerPool<FixtureRequest, FixtureResponse>) {
  const failures: string[] = [];
  const app = new App({
    shared: { pool },
    log: { error: (...parts: unknown[]) => failures.push(parts.map(String).join(" ")) },
  });
  return { app, failures };
}

async function get(port: number, path: string) {
  using client = await RawClient.connect(port);
  client.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
  const answer = await client.response();
  return `${answer.status} ${answer.text}`;
}

test("a handler that starts a job without awaiting it, or drafts its answer before awaiting it, keeps its worker and answers", async () => {
  // The worker used to go back when run() was called: a handler that went on drafting found no
  // worker to draft into ("the response has no worker"), a 500, and its job's result was lost.
  await using pool = new WorkerPool<FixtureRequest, FixtureResponse>({ script, threads: 1 });
  const { app, failures } = appWithLog(pool);
  const background: string[] = [];
  app.route("GET", "/background", (ctx) => {
    ctx.shared.pool.run({ kind: "echo", value: "done" }).then(
      (result) => background.push(result.value),
      (error: unknown) => background.push(String(error)),
    );
    ctx.response.text(200, "started");
  });
  app.route("GET", "/drafted-first", async (ctx) => {
    const pending = ctx.shared.pool.run({ kind: "echo", value: "late" });
    ctx.response.text(200, "drafted");
    await pending;
  });
  app.route("GET", "/awaited", async (ctx) => {
    const result = await ctx.shared.pool.run({ kind: "echo", value: "awaited" });
    ctx.response.text(200, result.value);
  });
  const server = listenQuietly(app);
  try {
    expect(await get(server.port, "/background")).toBe("200 started");
    expect(await get(server.port, "/drafted-first")).toBe("200 drafted");
    expect(await get(server.port, "/awaited")).toBe("200 awaited");
    await waitUntil(() => background.length === 1, "the background job to end");
    expect({ background, failures, completed: pool.stats().completed }).toEqual({
      background: ["done"],
      failures: [],
      completed: 3,
    });
  } finally {
    await app.stop();
  }
});

test("clients that ask for a job and leave withdraw it: they cannot fill the pool for the clients that stay", async () => {
  // Without the request's signal, five clients that sent a request and left kept one running
  // job and four queued ones (1 s each in the reviewer's run), and the next client was refused
  // with 503 for as long as they lasted; leaving costs the attacker nothing.
  await using pool = new WorkerPool<FixtureRequest, FixtureResponse>({
    script,
    threads: 1,
    maxQueuedJobs: 4,
  });
  using gate = new JobGate();
  const { app, failures } = appWithLog(pool);
  app.route("GET", "/job/:kind", async (ctx) => {
    const job: FixtureRequest =
      ctx.params.kind === "polite"
        ? { kind: "hangUntilCancelled" }
        : { kind: "gate", gate: gate.buffer };
    const result = await ctx.shared.pool.run(job);
    ctx.response.text(200, result.value);
  });
  const server = listenQuietly(app);
  try {
    const leaving: RawClient[] = [];
    for (const kind of ["polite", "gated", "gated", "gated", "gated"]) {
      const client = await RawClient.connect(server.port);
      client.send(`GET /job/${kind} HTTP/1.1\r\nHost: h\r\n\r\n`);
      leaving.push(client);
    }
    await waitUntil(() => {
      const { busy, queued } = pool.stats();
      return busy === 1 && queued === 4;
    }, "the pool to hold every leaving client's job");
    for (const client of leaving) client.destroy();
    await waitUntil(() => pool.stats().aborted === 5, "the leaving clients' jobs to be withdrawn");
    gate.open();
    expect(await get(server.port, "/job/gated")).toBe("200 gate opened");
    const { busy, queued, aborted, completed, rejectedBusy } = pool.stats();
    expect({ busy, queued, aborted, completed, rejectedBusy, failures }).toEqual({
      busy: 0,
      queued: 0,
      aborted: 5,
      completed: 1,
      rejectedBusy: 0,
      failures: [],
    });
  } finally {
    await app.stop();
  }
});

test("signal: null detaches a job from its request: it ends even when the client left; with a context it is a TypeError", async () => {
  await using pool = new WorkerPool<FixtureRequest, FixtureResponse>({ script, threads: 1 });
  using gate = new JobGate();
  const { app } = appWithLog(pool);
  const detached: string[] = [];
  app.route("GET", "/detached", (ctx) => {
    ctx.shared.pool.run({ kind: "gate", gate: gate.buffer }, { signal: null }).then(
      (result) => detached.push(result.value),
      (error: unknown) => detached.push(String(error)),
    );
    ctx.response.text(200, "started");
  });
  app.route("GET", "/contradiction", (ctx) => {
    try {
      void ctx.shared.pool.run({ kind: "echo", value: "x" }, { context: ctx, signal: null });
      ctx.response.text(200, "accepted");
    } catch (error) {
      ctx.response.text(200, String(error));
    }
  });
  const server = listenQuietly(app);
  try {
    const client = await RawClient.connect(server.port);
    client.send("GET /detached HTTP/1.1\r\nHost: h\r\n\r\n");
    await waitUntil(() => pool.stats().busy === 1, "the detached job to run");
    client.destroy();
    gate.open();
    await waitUntil(() => detached.length === 1, "the detached job to end");
    expect({ detached, aborted: pool.stats().aborted }).toEqual({
      detached: ["gate opened"],
      aborted: 0,
    });
    expect(await get(server.port, "/contradiction")).toBe(
      "200 TypeError: corral: pool.run with a context cannot detach its job (signal: null)",
    );
  } finally {
    await app.stop();
  }
});

test("a job that loses a Promise.race left the handler without its worker: a clear 500; the race wrapped in ctx.awaitOffWorker answers", async () => {
  // The job's wait gives the worker back; the race settles on the other promise while the job
  // still runs, so the handler goes on with no worker to draft into. The message used to send an
  // App's user to the engine's acquireWorker() alone.
  await using pool = new WorkerPool<FixtureRequest, FixtureResponse>({ script, threads: 2 });
  using gate = new JobGate();
  const { app, failures } = appWithLog(pool);
  const gated = (): FixtureRequest => ({ kind: "gate", gate: gate.buffer });
  app.route("GET", "/raced", async (ctx) => {
    const winner = await Promise.race([ctx.shared.pool.run(gated()), Bun.sleep(20)]);
    ctx.response.text(200, winner === undefined ? "timed out" : "job won");
  });
  app.route("GET", "/wrapped", async (ctx) => {
    const race = Promise.race([ctx.shared.pool.run(gated()), Bun.sleep(20)]);
    const winner = await ctx.awaitOffWorker(race);
    ctx.response.text(200, winner === undefined ? "timed out" : "job won");
  });
  const server = listenQuietly(app);
  try {
    expect(await get(server.port, "/raced")).toStartWith("500 ");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain(
      "the handler went on before that wait ended (a Promise.race or Promise.any over it?)",
    );
    expect(failures[0]).toContain("await ctx.awaitOffWorker(the race)");
    expect(await get(server.port, "/wrapped")).toBe("200 timed out");
    expect(failures).toHaveLength(1);
    expect(server.stats().workersBusy).toBe(0);
  } finally {
    gate.open();
    await app.stop();
  }
});
