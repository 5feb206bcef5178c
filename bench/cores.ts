// `--only cores`: hello keep-alive on 1 and on 2 processes sharing one port (reusePort), the corral
// App under `serve()` beside Bun.serve, measured in requests per wall-second and per server
// CPU-second (summed over every process of the group).
import { median } from "./aggregate.ts";
import type { Pinning } from "./pinning.ts";
import { readCpuSeconds } from "./process-metrics.ts";
import { alignRows, formatNumber } from "./report.ts";
import { ServerProcess } from "./server-process.ts";
import { helloText } from "./servers/payloads.ts";
import { runWrk } from "./wrk.ts";

const groups = [
  { label: "corral App, serve()", script: "corral-cores.ts" },
  { label: "Bun.serve, reusePort", script: "bun-serve-cores.ts" },
] as const;
const processCounts = [1, 2] as const;
const connections = 64;

/** One measured run of one group. */
export interface CoresRun {
  readonly server: string;
  readonly processes: number;
  readonly repeat: number;
  readonly requestsPerSecond: number;
  /** User + system CPU of every process of the group during the measured load. */
  readonly cpuSeconds: number;
  readonly requestsPerCpuSecond: number;
  readonly wrkCommand: string;
}

/** How to run the scenario. */
export interface CoresPlan {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly repeats: number;
  readonly pinning: Pinning;
  readonly ticksPerSecond: number;
  readonly repoRoot: string;
  readonly log: (text: string) => void;
}

/**
 * One process: the group on core 0 and wrk on core 1, as the other scenarios. Two processes: on
 * a 2-core machine nothing is left to pin to, so the group and wrk share both cores unpinned.
 */
export async function runCores(plan: CoresPlan): Promise<CoresRun[]> {
  const runs: CoresRun[] = [];
  for (let repeat = 0; repeat < plan.repeats; repeat++) {
    for (const processes of processCounts) {
      for (const group of groups) {
        plan.log(
          `  cores / ${group.label}, ${processes} process(es), ${plan.durationSeconds} s ... `,
        );
        const run = await measureGroup(plan, group, processes, repeat);
        plan.log(
          `${Math.round(run.requestsPerSecond).toLocaleString("en-US")} req/s, ` +
            `CPU ${run.cpuSeconds.toFixed(2)} s\n`,
        );
        runs.push(run);
      }
    }
  }
  return runs;
}

async function measureGroup(
  plan: CoresPlan,
  group: (typeof groups)[number],
  processes: number,
  repeat: number,
): Promise<CoresRun> {
  const pinned = processes === 1;
  const server = await ServerProcess.start({
    script: `${import.meta.dir}/servers/${group.script}`,
    pinPrefix: pinned ? plan.pinning.server : [],
    cwd: plan.repoRoot,
    args: ["--processes", String(processes)],
  });
  try {
    const pids = [server.pid, ...(server.jsonLine<number[]>("PIDS ") ?? [])];
    if (pids.length !== processes + 1) throw new Error(`${group.script} did not print its PIDS`);
    const url = `http://127.0.0.1:${server.port}/`;
    const check = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    const body = await check.text();
    if (check.status !== 200 || body !== helloText) {
      throw new Error(`GET ${url} answered ${check.status} ${JSON.stringify(body)}`);
    }
    const load = {
      url,
      connections,
      pipelineDepth: 1,
      pinPrefix: pinned ? plan.pinning.load : [],
    };
    if (plan.warmupSeconds > 0) await runWrk({ ...load, durationSeconds: plan.warmupSeconds });
    const cpu = () => pids.reduce((sum, pid) => sum + readCpuSeconds(pid, plan.ticksPerSecond), 0);
    const cpuBefore = cpu();
    const wrk = await runWrk({ ...load, durationSeconds: plan.durationSeconds });
    const cpuSeconds = cpu() - cpuBefore;
    return {
      server: group.label,
      processes,
      repeat,
      requestsPerSecond: wrk.requestsPerSecond,
      cpuSeconds,
      requestsPerCpuSecond: cpuSeconds > 0 ? wrk.requests / cpuSeconds : Number.NaN,
      wrkCommand: wrk.command,
    };
  } finally {
    await server.stop();
  }
}

/** The table: medians per group and process count, and the 2-process / 1-process ratios. */
export function formatCores(runs: readonly CoresRun[]): string {
  const rows: string[][] = [["server", "processes", "req/s", "server CPU s", "req/CPU-s"]];
  for (const group of groups) {
    for (const processes of processCounts) {
      const mine = runs.filter((run) => run.server === group.label && run.processes === processes);
      rows.push([
        group.label,
        String(processes),
        formatNumber(median(mine.map((run) => run.requestsPerSecond)), 0),
        formatNumber(median(mine.map((run) => run.cpuSeconds)), 2),
        formatNumber(median(mine.map((run) => run.requestsPerCpuSecond)), 0),
      ]);
    }
    const of = (processes: number, metric: "requestsPerSecond" | "requestsPerCpuSecond") =>
      median(
        runs
          .filter((run) => run.server === group.label && run.processes === processes)
          .map((run) => run[metric]),
      );
    rows.push([
      `${group.label}: 2 / 1`,
      "",
      `${formatNumber(of(2, "requestsPerSecond") / of(1, "requestsPerSecond"), 2)}x`,
      "",
      `${formatNumber(of(2, "requestsPerCpuSecond") / of(1, "requestsPerCpuSecond"), 2)}x`,
    ]);
  }
  return alignRows(rows, [1, 2, 3, 4]);
}
