import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { type Supervisor, serve } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { processAlive, servingPids, waitUntil } from "./support/serving-pids.ts";

const entry = `${import.meta.dir}/fixtures/pid-app.ts`;
const sorted = (pids: number[]) => [...pids].sort((a, b) => a - b);
// Short settings keep the tests fast; the defaults (1 s, 5 s) only scale the same logic.
const liveness = { livenessIntervalMs: 100, livenessDeadlineMs: 1000 } as const;
let group: Supervisor | undefined;

afterEach(async () => {
  await group?.stop({ graceMs: 1000 });
  group = undefined;
});

/** Removes the stuck-start files; kills the last stuck process should the supervisor not have. */
function killStuck(stuckFile: string): void {
  if (existsSync(`${stuckFile}.pid`)) {
    const pid = Number(readFileSync(`${stuckFile}.pid`, "utf8"));
    if (processAlive(pid)) process.kill(pid, "SIGKILL");
  }
  rmSync(stuckFile, { force: true });
  rmSync(`${stuckFile}.pid`, { force: true });
}

function startGroup(log: string[]): Promise<Supervisor> {
  return serve(entry, {
    port: 0,
    processes: 2,
    handleSignals: false,
    log: (line) => log.push(line),
    ...liveness,
  });
}

/**
 * A group of two whose one process spins in a handler: the process that spins (its pid written
 * to `spinFile`, which the fixture reads from SPIN_STARTED_FILE), the other, and the client whose
 * request it spins on (keep it open).
 */
async function spinOneOfTwo(spinFile: string, log: string[]) {
  process.env.SPIN_STARTED_FILE = spinFile;
  group = await startGroup(log);
  const running = group;
  const [first, second] = sorted(group.pids());
  const client = await RawClient.connect(group.port);
  client.send("GET /spin HTTP/1.1\r\nHost: x\r\n\r\n");
  // The file is created, then its pid written: wait for the pid.
  const spinningPid = () => (existsSync(spinFile) ? Number(readFileSync(spinFile, "utf8")) : 0);
  await waitUntil(() => spinningPid() > 0, "the handler to spin");
  const stuck = spinningPid();
  return { running, client, stuck, other: stuck === first ? second! : first! };
}

test("a process whose event loop is stuck is killed, counted and restarted, and stats() does not wait for it", async () => {
  const spinFile = `${tmpdir()}/corral-spin-${process.pid}-${Date.now()}`;
  const log: string[] = [];
  const spun = await spinOneOfTwo(spinFile, log);
  const { running, stuck, other } = spun;
  using _client = spun.client;
  const spinningSince = performance.now();

  // stats() answers within the deadline, without the stuck process and naming it.
  // A backstop so that a stats() that never answers fails here rather than at the test's timeout.
  const stats = await Promise.race([running.stats(), Bun.sleep(3000).then(() => null)]);
  const statsMs = performance.now() - spinningSince;
  expect(stats).not.toBeNull();
  expect({
    processes: stats!.processes,
    answered: stats!.perProcess.map(({ pid }) => pid),
    unanswered: stats!.unanswered,
  }).toEqual({ processes: 1, answered: [other], unanswered: [stuck] });
  expect(statsMs).toBeLessThan(1000 + 500);

  // Killed after the deadline (plus at most one interval), logged, then restarted.
  await waitUntil(
    () => running.hungRestarts === 1 && running.pids().length === 2,
    "the restart of the stuck process",
    5000,
  );
  const restartedMs = performance.now() - spinningSince;
  expect(restartedMs).toBeGreaterThanOrEqual(1000);
  // Deadline 1000 + interval 100 + restart delay 100 + a process start, with room for a slow CI.
  expect(restartedMs).toBeLessThan(4000);
  expect(processAlive(stuck)).toBe(false);
  expect(running.pids()).not.toContain(stuck);
  expect(log.length).toBe(2);
  expect(log[1]).toMatch(
    new RegExp(
      `^corral: process [12] \\(pid ${stuck}\\) left its liveness pings unanswered for 1000 ms: ` +
        "its event loop is stuck; killing it \\(SIGKILL\\) to restart it$",
    ),
  );

  // A side client is answered by both processes again, and stats() by both.
  const pids = sorted(running.pids());
  await waitUntil(
    async () => (await servingPids(running.port, pids, 50)).length === 2,
    "both processes to serve",
  );
  const after = await running.stats();
  expect({
    processes: after.processes,
    restarts: after.restarts,
    hungRestarts: after.hungRestarts,
    unanswered: after.unanswered,
  }).toEqual({ processes: 2, restarts: 1, hungRestarts: 1, unanswered: [] });
  rmSync(spinFile);
  delete process.env.SPIN_STARTED_FILE;
});

test("a process that exits while stats() waits for it is listed as unanswered, not left out", async () => {
  const spinFile = `${tmpdir()}/corral-spin-exit-${process.pid}-${Date.now()}`;
  try {
    const spun = await spinOneOfTwo(spinFile, []);
    const { running, stuck, other } = spun;
    using _client = spun.client;
    // Asked while it spins, then killed well before the deadline: the race the liveness check
    // runs against stats() when it kills a hung process, decided here by the test.
    const asked = running.stats();
    await Bun.sleep(200);
    process.kill(stuck, "SIGKILL");
    const stats = await asked;
    expect({
      processes: stats.processes,
      answered: stats.perProcess.map(({ pid }) => pid),
      unanswered: stats.unanswered,
    }).toEqual({ processes: 1, answered: [other], unanswered: [stuck] });
  } finally {
    rmSync(spinFile, { force: true });
    delete process.env.SPIN_STARTED_FILE;
  }
});

test("a process busy with a synchronous handler for less than the deadline is not killed", async () => {
  const log: string[] = [];
  group = await startGroup(log);
  const running = group;
  const pids = sorted(group.pids());
  // 700 ms blocked: seven pings go unanswered, three fewer than the deadline takes.
  using client = await RawClient.connect(running.port);
  client.send("GET /busy/700 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const response = await client.response();
  expect({ status: response.status, servedBy: pids.includes(Number(response.text)) }).toEqual({
    status: 200,
    servedBy: true,
  });
  // Past one more deadline, nothing was killed and every process answers.
  await Bun.sleep(1200);
  const stats = await running.stats();
  expect({
    pids: sorted(running.pids()),
    restarts: stats.restarts,
    hungRestarts: stats.hungRestarts,
    unanswered: stats.unanswered,
    processes: stats.processes,
    log: log.length,
  }).toEqual({ pids, restarts: 0, hungRestarts: 0, unanswered: [], processes: 2, log: 1 });
});

test("a process stuck loading its entry module: serve() rejects at the start deadline and kills it", async () => {
  const stuckFile = `${tmpdir()}/corral-stuck-${process.pid}-${Date.now()}`;
  writeFileSync(stuckFile, "");
  process.env.STUCK_START_FILE = stuckFile;
  try {
    const log: string[] = [];
    const started = performance.now();
    const attempt = serve(`${import.meta.dir}/fixtures/stuck-start-app.ts`, {
      port: 0,
      processes: 1,
      handleSignals: false,
      log: (line) => log.push(line),
      startDeadlineMs: 500,
    });
    // Before the deadline existed this never settled: the backstop turns that into a failure.
    const outcome = await Promise.race([
      attempt.then(
        () => "listening",
        (error: Error) => error.message,
      ),
      Bun.sleep(5000).then(() => "still waiting"),
    ]);
    expect(outcome).toBe(
      "corral: process 1 did not listen within 500 ms of its start (startDeadlineMs); it was killed",
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(500);
    const stuck = Number(readFileSync(`${stuckFile}.pid`, "utf8"));
    expect(processAlive(stuck)).toBe(false);
    expect(log).toEqual([
      `corral: process 1 (pid ${stuck}) did not listen within 500 ms of its start (startDeadlineMs): killing it (SIGKILL)`,
    ]);
  } finally {
    delete process.env.STUCK_START_FILE;
    killStuck(stuckFile);
  }
});

test("a restarted process stuck loading is killed at the start deadline and restarted until it listens; the others serve meanwhile", async () => {
  const stuckFile = `${tmpdir()}/corral-stuck-${process.pid}-${Date.now()}`;
  process.env.STUCK_START_FILE = stuckFile;
  try {
    const log: string[] = [];
    group = await serve(`${import.meta.dir}/fixtures/stuck-start-app.ts`, {
      port: 0,
      processes: 2,
      handleSignals: false,
      log: (line) => log.push(line),
      startDeadlineMs: 400,
    });
    const running = group;
    const [victim, survivor] = sorted(running.pids());
    writeFileSync(stuckFile, "");
    process.kill(victim!, "SIGKILL");
    // Its restart gets stuck loading and is killed at the deadline: the slot was lost for good.
    await waitUntil(() => running.startTimeouts >= 1, "a restart killed at its deadline", 5000);
    expect(log[1]).toMatch(
      /^corral: process [12] \(pid \d+\) did not listen within 400 ms of its start \(startDeadlineMs\): killing it \(SIGKILL\) to restart it$/,
    );
    // Meanwhile the survivor serves every connection.
    expect(await servingPids(running.port, [], 20)).toEqual([survivor!]);
    rmSync(stuckFile);
    await waitUntil(() => running.pids().length === 2, "the slot to serve again", 10_000);
    const pids = sorted(running.pids());
    await waitUntil(
      async () => (await servingPids(running.port, pids, 50)).length === 2,
      "both processes to serve",
    );
    const stats = await running.stats();
    expect({ processes: stats.processes, hung: stats.hungRestarts }).toEqual({
      processes: 2,
      hung: 0,
    });
    expect(stats.startTimeouts).toBe(running.startTimeouts);
    expect(stats.restarts).toBeGreaterThanOrEqual(stats.startTimeouts + 1);
  } finally {
    delete process.env.STUCK_START_FILE;
    killStuck(stuckFile);
  }
});

test("the liveness settings are validated with the reason", async () => {
  const attempt = (options: {
    livenessIntervalMs?: number;
    livenessDeadlineMs?: number;
    startDeadlineMs?: number;
  }) => serve(entry, { port: 0, processes: 1, handleSignals: false, log: null, ...options });
  await expect(attempt({ livenessIntervalMs: 5 })).rejects.toThrow(
    new RangeError("corral: livenessIntervalMs must be an integer from 10 to 60000, got 5"),
  );
  await expect(attempt({ livenessIntervalMs: 1.5 })).rejects.toThrow(RangeError);
  await expect(attempt({ livenessDeadlineMs: 1500 })).rejects.toThrow(
    new RangeError(
      "corral: livenessDeadlineMs must be an integer from twice livenessIntervalMs (2000) to 3600000, got 1500",
    ),
  );
  await expect(attempt({ livenessIntervalMs: 100, livenessDeadlineMs: 3_600_001 })).rejects.toThrow(
    RangeError,
  );
  await expect(attempt({ startDeadlineMs: 99 })).rejects.toThrow(
    new RangeError("corral: startDeadlineMs must be an integer from 100 to 3600000, got 99"),
  );
  await expect(attempt({ startDeadlineMs: 3_600_001 })).rejects.toThrow(RangeError);
});
