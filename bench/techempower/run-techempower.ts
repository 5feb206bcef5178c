import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { median } from "../aggregate.ts";
import type { CoresPlan } from "../cores.ts";
import { readCpuSeconds } from "../process-metrics.ts";
import { ServerProcess } from "../server-process.ts";
import { runWrk } from "../wrk.ts";
import {
  type DatabaseChoice,
  type TechEmpowerLoad,
  type TechEmpowerServer,
  techEmpowerLoads,
  techEmpowerServers,
} from "./load-plan.ts";
import { startPostgresServer } from "./postgres-server.ts";
import { verifyTechEmpower } from "./verifier.ts";
import type { Problem } from "./verifier-checks.ts";
import { inspectDatabase } from "./verifier-database.ts";

/** One load against one server in one repeat. */
export interface TechEmpowerMeasurement {
  readonly database: DatabaseChoice;
  readonly load: string;
  readonly server: TechEmpowerServer;
  readonly repeat: number;
  readonly requestsPerSecond: number;
  readonly cpuSeconds: number;
  readonly requestsPerCpuSecond: number;
  readonly p99Ms: number;
  /** Answers that were not 2xx/3xx, and socket errors: a row with any is marked. */
  readonly non2xx3xx: number;
  readonly socketErrors: number;
}

/** A server the verifier failed: not measured on that database. */
export interface InvalidServer {
  readonly database: DatabaseChoice;
  readonly server: TechEmpowerServer;
  readonly failures: readonly Problem[];
}

export interface TechEmpowerRun {
  readonly measurements: readonly TechEmpowerMeasurement[];
  readonly invalid: readonly InvalidServer[];
  readonly postgresPinning: string;
  /** What could not run at all (PostgreSQL missing, a server that did not start), per database. */
  readonly errors: readonly string[];
}

/** How to run the scenario: the same plan as the `cores` scenario's. */
export type TechEmpowerPlan = CoresPlan;

/** A server started for one database and passed by the verifier. */
interface RunningServer {
  readonly server: (typeof techEmpowerServers)[number];
  readonly process: ServerProcess;
}

/**
 * For SQLite, then PostgreSQL: every server in its own process on the server core with `--db`,
 * all started at once and verified first (a server that fails is reported invalid and not
 * measured); then, repeat after repeat, each load on every server in turn under wrk on the load
 * core, each after a warm-up, the servers' order rotated each repeat. A load's servers are so
 * measured within seconds of each other, not minutes apart: this machine's speed drifts by
 * 20-70% within minutes, and the ratios are taken within a repeat. PostgreSQL runs on the load
 * generator's core (its CPU is not the server's).
 */
export async function runTechEmpower(plan: TechEmpowerPlan): Promise<TechEmpowerRun> {
  const measurements: TechEmpowerMeasurement[] = [];
  const invalid: InvalidServer[] = [];
  const errors: string[] = [];
  const directory = mkdtempSync(`${tmpdir()}/corral-bench-techempower-`);
  const postgresPinning =
    plan.pinning.load.length > 0
      ? `PostgreSQL on core ${plan.pinning.load.at(-1)} with wrk`
      : "PostgreSQL not pinned";
  try {
    for (const database of ["sqlite", "postgres"] as const) {
      const loads = techEmpowerLoads.filter((load) => load.databases.includes(database));
      let postgres: Awaited<ReturnType<typeof startPostgresServer>> | undefined;
      const running: RunningServer[] = [];
      try {
        if (database === "postgres")
          postgres = await startPostgresServer({ pinPrefix: plan.pinning.load });
        const location = postgres?.url ?? `${directory}/techempower.sqlite`;
        for (const server of techEmpowerServers) {
          try {
            const started = await startVerified(plan, server, database, location, invalid);
            if (started !== undefined) running.push(started);
          } catch (error) {
            errors.push(`${database} / ${server.label}: ${(error as Error).message}`);
            plan.log(`  ${database} / ${server.label}: FAILED\n`);
          }
        }
        for (let repeat = 0; repeat < plan.repeats; repeat++) {
          const start = repeat % Math.max(1, running.length);
          const order = [...running.slice(start), ...running.slice(0, start)];
          for (const load of loads) {
            for (const entry of order) {
              try {
                measurements.push(await measureLoad(plan, entry, database, load, repeat));
              } catch (error) {
                errors.push(
                  `${database} / ${load.id} / ${entry.server.label}: ${(error as Error).message}`,
                );
                plan.log("FAILED\n");
              }
            }
          }
        }
      } catch (error) {
        errors.push(`${database}: ${(error as Error).message}`);
        plan.log(`  ${database}: FAILED (${(error as Error).message.split("\n")[0]})\n`);
      } finally {
        await Promise.all(running.map((entry) => entry.process.stop()));
        await postgres?.[Symbol.asyncDispose]();
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return { measurements, invalid, postgresPinning, errors };
}

/** Starts one server on the database and verifies it; undefined (and stopped) when it fails. */
async function startVerified(
  plan: TechEmpowerPlan,
  server: (typeof techEmpowerServers)[number],
  database: DatabaseChoice,
  location: string,
  invalid: InvalidServer[],
): Promise<RunningServer | undefined> {
  const process = await ServerProcess.start({
    script: `${plan.repoRoot}/bench/servers/${server.script}`,
    pinPrefix: plan.pinning.server,
    cwd: plan.repoRoot,
    args: ["--db", location],
  });
  try {
    const inspector = inspectDatabase(location);
    const report = await verifyTechEmpower(process.port, inspector).finally(() =>
      inspector.close(),
    );
    if (report.failures.length === 0) return { server, process };
    invalid.push({ database, server: server.kind, failures: report.failures });
    plan.log(`  ${database} / ${server.label}: INVALID (${report.failures[0]!.message})\n`);
  } catch (error) {
    await process.stop();
    throw error;
  }
  await process.stop();
  return undefined;
}

/** One load on one running server: a warm-up, then the measured run. */
async function measureLoad(
  plan: TechEmpowerPlan,
  { server, process }: RunningServer,
  database: DatabaseChoice,
  load: TechEmpowerLoad,
  repeat: number,
): Promise<TechEmpowerMeasurement> {
  plan.log(`  ${database} / ${load.id} / ${server.label}, ${plan.durationSeconds} s ... `);
  const wrkLoad = {
    url: `http://127.0.0.1:${process.port}${load.path}`,
    connections: load.connections,
    pipelineDepth: load.pipelineDepth,
    pinPrefix: plan.pinning.load,
  };
  if (plan.warmupSeconds > 0) await runWrk({ ...wrkLoad, durationSeconds: plan.warmupSeconds });
  const cpuBefore = readCpuSeconds(process.pid, plan.ticksPerSecond);
  const wrk = await runWrk({ ...wrkLoad, durationSeconds: plan.durationSeconds });
  const cpuSeconds = readCpuSeconds(process.pid, plan.ticksPerSecond) - cpuBefore;
  const errors = wrk.socketErrors;
  const measurement: TechEmpowerMeasurement = {
    database,
    load: load.id,
    server: server.kind,
    repeat,
    requestsPerSecond: wrk.requestsPerSecond,
    cpuSeconds,
    requestsPerCpuSecond: cpuSeconds > 0 ? wrk.requests / cpuSeconds : Number.NaN,
    p99Ms: wrk.p99Ms,
    non2xx3xx: wrk.non2xx3xx,
    socketErrors: errors.connect + errors.read + errors.write + errors.timeout,
  };
  plan.log(
    `${Math.round(wrk.requestsPerSecond).toLocaleString("en-US")} req/s, ` +
      `${Math.round(measurement.requestsPerCpuSecond).toLocaleString("en-US")} req/CPU-s` +
      `${wrk.non2xx3xx > 0 ? `, ${wrk.non2xx3xx} non-2xx` : ""}\n`,
  );
  return measurement;
}

/**
 * corral / `peer` in requests per server CPU-second for one database and load: the median over
 * the repeats of the ratio within each repeat.
 */
export function techEmpowerRatio(
  measurements: readonly TechEmpowerMeasurement[],
  database: DatabaseChoice,
  load: string,
  peer: TechEmpowerServer,
): number {
  const ratios: number[] = [];
  for (const top of measurements) {
    if (top.database !== database || top.load !== load || top.server !== "corral") continue;
    const bottom = measurements.find(
      (entry) =>
        entry.database === database &&
        entry.load === load &&
        entry.server === peer &&
        entry.repeat === top.repeat,
    );
    if (bottom !== undefined) ratios.push(top.requestsPerCpuSecond / bottom.requestsPerCpuSecond);
  }
  return median(ratios);
}
