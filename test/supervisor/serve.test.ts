import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { type Supervisor, serve } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { processAlive, servingPids, waitUntil, waitUntilRefused } from "./support/serving-pids.ts";

const entry = `${import.meta.dir}/fixtures/pid-app.ts`;
const sorted = (pids: number[]) => [...pids].sort((a, b) => a - b);
let group: Supervisor | undefined;

afterEach(async () => {
  await group?.stop({ graceMs: 1000 });
  group = undefined;
});

function startGroup(processes: number, log: string[] = []): Promise<Supervisor> {
  return serve(entry, { port: 0, processes, handleSignals: false, log: (line) => log.push(line) });
}

test("two processes behind one port both serve, and the budget line shows the total", async () => {
  const log: string[] = [];
  group = await startGroup(2, log);
  const pids = sorted(group.pids());
  expect(pids.length).toBe(2);
  expect(await servingPids(group.port, pids)).toEqual(pids);
  expect(log.length).toBe(1);
  const match =
    /^corral: reserved ([\d.]+) MiB in total, 2 processes x \(reserved ([\d.]+) MiB \(/.exec(
      log[0]!,
    );
  expect(match).not.toBeNull();
  expect(Number(match![1])).toBeCloseTo(2 * Number(match![2]), 0);
});

test("group stats are the sum of each process's counters", async () => {
  group = await startGroup(2);
  const pids = sorted(group.pids());
  await servingPids(group.port, pids);
  const stats = await group.stats();
  expect(stats.processes).toBe(2);
  expect(sorted(stats.perProcess.map(({ pid }) => pid))).toEqual(pids);
  const [first, second] = stats.perProcess.map(({ stats }) => stats);
  expect(first!.requests).toBeGreaterThan(0);
  expect(second!.requests).toBeGreaterThan(0);
  expect({
    requests: stats.total.requests,
    ok: stats.total.responses["2xx"],
    accepted: stats.total.connectionsAccepted,
  }).toEqual({
    requests: first!.requests + second!.requests,
    ok: first!.responses["2xx"] + second!.responses["2xx"],
    accepted: first!.connectionsAccepted + second!.connectionsAccepted,
  });
});

test("a process killed with SIGKILL is restarted, counted, and serves again", async () => {
  group = await startGroup(2);
  const [victim, survivor] = group.pids();
  process.kill(victim!, "SIGKILL");
  const running = group;
  await waitUntil(
    () =>
      running.restarts === 1 && running.pids().length === 2 && !running.pids().includes(victim!),
    "the restart",
  );
  const pids = sorted(running.pids());
  expect(pids).toContain(survivor!);
  // The restarted process serves once it listens: keep asking until both pids answered.
  await waitUntil(async () => {
    const seen = await servingPids(running.port, pids, 50);
    return seen.length === 2;
  }, "both processes to serve");
  expect((await running.stats()).restarts).toBe(1);
  expect(processAlive(victim!)).toBe(false);
});

test("stop() lets a request in progress finish, then every process exits", async () => {
  const releaseFile = `${tmpdir()}/corral-hold-${process.pid}-${Date.now()}`;
  const startedFile = `${releaseFile}-started`;
  process.env.HOLD_RELEASE_FILE = releaseFile;
  process.env.HOLD_STARTED_FILE = startedFile;
  group = await startGroup(2);
  const pids = group.pids();
  using client = await RawClient.connect(group.port);
  client.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
  const running = group;
  // The handler sleeps between its checks without holding a worker: its file tells it runs.
  await waitUntil(() => Bun.file(startedFile).exists(), "the handler to run");
  const stopped = group.stop({ graceMs: 10_000 });
  await waitUntilRefused(running.port);
  await Bun.write(releaseFile, "go");
  const response = await client.response();
  await stopped;
  expect({
    status: response.status,
    connection: response.header("connection"),
    finished: /^finished by \d+$/.test(response.text),
  }).toEqual({ status: 200, connection: "close", finished: true });
  expect(pids.map(processAlive)).toEqual([false, false]);
  rmSync(releaseFile);
  rmSync(startedFile);
  delete process.env.HOLD_RELEASE_FILE;
  delete process.env.HOLD_STARTED_FILE;
});

test("an entry module that exports no App is a clear error", async () => {
  await expect(
    serve(`${import.meta.dir}/support/serving-pids.ts`, {
      port: 0,
      processes: 1,
      handleSignals: false,
    }),
  ).rejects.toThrow("exited with code 1 before listening");
});

test("processes must be a whole number from 1 to 1024, and the entry a path", async () => {
  const attempt = (processes: number) =>
    serve(entry, { port: 0, processes, handleSignals: false, log: null });
  await expect(attempt(0)).rejects.toThrow(
    new RangeError("corral: processes must be an integer from 1 to 1024, got 0"),
  );
  await expect(attempt(1025)).rejects.toThrow(
    new RangeError("corral: processes must be an integer from 1 to 1024, got 1025"),
  );
  await expect(attempt(1.5)).rejects.toThrow(RangeError);
  await expect(serve("", { port: 0, handleSignals: false })).rejects.toThrow(
    new TypeError("corral: serve() needs the path of an entry module"),
  );
  // A path with no file behind it is refused before any process starts.
  await expect(serve(`${entry}.missing`, { port: 0, handleSignals: false })).rejects.toThrow(
    new TypeError(`corral: serve() found no entry module at ${entry}.missing`),
  );
  // A misspelt option (a cast stands for JavaScript) is refused before any process starts.
  await expect(
    serve(entry, { port: 0, porcesses: 2, handleSignals: false, log: null } as never),
  ).rejects.toThrow('corral: serve() has no option "porcesses" (its options: port, hostname,');
});

test("a port another group serves is refused, not shared: the clients are not split between two Apps", async () => {
  group = await startGroup(2);
  await expect(
    serve(entry, { port: group.port, processes: 2, handleSignals: false, log: null }),
  ).rejects.toThrow(`corral: 127.0.0.1:${group.port} is in use`);
  // The first group still serves alone.
  expect(await servingPids(group.port, sorted(group.pids()))).toEqual(sorted(group.pids()));
});
