// The `static` scenario: files from disk through corral's serveStatic, Bun.serve answering
// `new Response(Bun.file(path))`, and Bun.serve static routes (`routes: { path: Bun.file }`),
// for 1 KiB, 64 KiB and 10 MiB files, plain keep-alive and conditional (If-None-Match) requests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import type { Pinning } from "./pinning.ts";
import { RssSampler, readCpuSeconds, readRss } from "./process-metrics.ts";
import { ServerProcess } from "./server-process.ts";
import { staticFiles, writeStaticFiles } from "./servers/static-files.ts";
import { runWrk } from "./wrk.ts";

/** The goal of the issue for 20 concurrent downloads of the 10 MiB file on corral. */
export const staticRssGrowthCapMiB = 16;

type StaticServer = "corral" | "corral-sendfile" | "bun-file" | "bun-routes";
const servers: ReadonlyArray<{
  readonly kind: StaticServer;
  readonly label: string;
  readonly script: string;
}> = [
  { kind: "corral", label: "corral serveStatic", script: "bench/servers/corral-static.ts" },
  {
    kind: "corral-sendfile",
    label: "corral sendfile",
    script: "bench/servers/corral-static-sendfile.ts",
  },
  {
    kind: "bun-file",
    label: "Bun.serve Bun.file",
    script: "bench/servers/bun-serve-static-file.ts",
  },
  {
    kind: "bun-routes",
    label: "Bun.serve routes",
    script: "bench/servers/bun-serve-static-routes.ts",
  },
];

/**
 * Seconds of warm-up for a file over 64 KiB when the plan warms at all. A 10 MiB download takes
 * a few dozen a second, so the per-request code runs a few dozen times a second and reaches the
 * JIT's optimizing tiers late: after 1 s of warm-up the JIT's threads took 14-18% of corral's
 * CPU in the measured run, and even after 10 s, 50 compilations (111 ms) fell in the next 8 s
 * (`BUN_JSC_reportCompileTimes=1`). Every server gets the same warm-up; Bun.serve's `Bun.file`
 * answers are native and do not need it.
 */
export const largeFileWarmupSeconds = 20;

/** One load against one server. */
export interface StaticRun {
  readonly server: StaticServer;
  readonly file: string;
  readonly conditional: boolean;
  readonly requestsPerSecond: number;
  readonly requestsPerCpuSecond: number;
  readonly mibPerSecond: number;
  readonly peakRssMiB: number;
  readonly rssGrowthMiB: number;
  /** What one request of the load was answered with (200, or 304 for conditional loads). */
  readonly status: number;
  readonly error: string | null;
}

/** How to run the scenario. */
export interface StaticPlan {
  readonly durationSeconds: number;
  /** Seconds of unmeasured load before each measured one (0 for none). */
  readonly warmupSeconds: number;
  readonly pinning: Pinning;
  readonly ticksPerSecond: number;
  readonly repoRoot: string;
  readonly log: (text: string) => void;
}

/**
 * Every file plain, then the small files conditional, each row on a fresh process of each server:
 * its peak RSS is that row's, not the most an earlier row left behind.
 */
export async function runStatic(plan: StaticPlan): Promise<StaticRun[]> {
  const directory = mkdtempSync(`${tmpdir()}/corral-bench-static-`);
  const runs: StaticRun[] = [];
  try {
    writeStaticFiles(directory);
    for (const server of servers) {
      for (const file of staticFiles) {
        for (const conditional of file.bytes > 65536 ? [false] : [false, true]) {
          const process = await ServerProcess.start({
            script: server.script,
            pinPrefix: plan.pinning.server,
            cwd: plan.repoRoot,
            args: ["--dir", directory],
          });
          try {
            plan.log(
              `  static ${file.name}${conditional ? " (304)" : ""} / ${server.label}, ${plan.durationSeconds} s ... `,
            );
            const run = await measure(plan, process, server.kind, file, conditional);
            plan.log(
              run.error ??
                `${Math.round(run.requestsPerSecond).toLocaleString("en-US")} req/s, ${run.mibPerSecond.toFixed(0)} MiB/s, ` +
                  `status ${run.status}, peak RSS ${run.peakRssMiB.toFixed(1)} MiB\n`,
            );
            if (run.error !== null) plan.log("\n");
            runs.push(run);
          } finally {
            await process.stop();
          }
        }
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return runs;
}

async function measure(
  plan: StaticPlan,
  process: ServerProcess,
  server: StaticServer,
  file: (typeof staticFiles)[number],
  conditional: boolean,
): Promise<StaticRun> {
  const url = `http://127.0.0.1:${process.port}/${file.name}`;
  const base = { server, file: file.name, conditional };
  const probe = await fetch(url);
  await probe.arrayBuffer();
  const etag = probe.headers.get("etag");
  const lastModified = probe.headers.get("last-modified");
  const headers = !conditional
    ? []
    : etag !== null
      ? [`If-None-Match: ${etag}`]
      : lastModified !== null
        ? [`If-Modified-Since: ${lastModified}`]
        : [];
  const check = await fetch(url, {
    headers: Object.fromEntries(headers.map((line) => line.split(": ") as [string, string])),
  });
  await check.arrayBuffer();
  const failed = (error: string): StaticRun => ({
    ...base,
    requestsPerSecond: 0,
    requestsPerCpuSecond: 0,
    mibPerSecond: 0,
    peakRssMiB: 0,
    rssGrowthMiB: 0,
    status: check.status,
    error,
  });
  if (probe.status !== 200) return failed(`FAILED: GET ${file.name} answered ${probe.status}`);
  // Warm-up: the JIT, and corral's memory of verified names, before anything is measured.
  if (plan.warmupSeconds > 0) {
    await runWrk({
      url,
      connections: file.connections,
      durationSeconds:
        file.bytes > 65536
          ? Math.max(plan.warmupSeconds, largeFileWarmupSeconds)
          : plan.warmupSeconds,
      pipelineDepth: 1,
      pinPrefix: plan.pinning.load,
      headers,
      timeoutSeconds: 30,
    });
  }
  const rssBefore = readRss(process.pid).rssMiB;
  const sampler = new RssSampler(process.pid);
  const cpuBefore = readCpuSeconds(process.pid, plan.ticksPerSecond);
  sampler.start(20);
  try {
    const wrk = await runWrk({
      url,
      connections: file.connections,
      durationSeconds: plan.durationSeconds,
      pipelineDepth: 1,
      pinPrefix: plan.pinning.load,
      headers,
      timeoutSeconds: 30,
    });
    const { maxMiB } = sampler.stop();
    const cpuSeconds = readCpuSeconds(process.pid, plan.ticksPerSecond) - cpuBefore;
    const errors =
      wrk.socketErrors.connect +
      wrk.socketErrors.read +
      wrk.socketErrors.write +
      wrk.socketErrors.timeout;
    return {
      ...base,
      requestsPerSecond: wrk.requestsPerSecond,
      requestsPerCpuSecond: cpuSeconds > 0 ? wrk.requests / cpuSeconds : 0,
      mibPerSecond: wrk.transferMiBPerSecond,
      peakRssMiB: readRss(process.pid).peakMiB,
      rssGrowthMiB: maxMiB - rssBefore,
      status: check.status,
      error:
        errors > 0 || wrk.non2xx3xx > 0
          ? `FAILED: ${errors} socket errors, ${wrk.non2xx3xx} non-2xx/3xx`
          : null,
    };
  } catch (error) {
    sampler.stop();
    return failed(`FAILED: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** The runs as a table, with corral's ratios to each Bun.serve form and the goals. */
export function formatStatic(runs: readonly StaticRun[]): string {
  const find = (server: StaticServer, file: string, conditional: boolean) =>
    runs.find(
      (run) => run.server === server && run.file === file && run.conditional === conditional,
    );
  const rows: string[] = [];
  const goals: string[] = [];
  for (const file of staticFiles) {
    for (const conditional of file.bytes > 65536 ? [false] : [false, true]) {
      const name = `${file.name}${conditional ? " 304" : ""}`;
      for (const server of servers) {
        const run = find(server.kind, file.name, conditional);
        if (run === undefined) continue;
        rows.push(
          `| ${name.padEnd(11)} | ${server.label.padEnd(18)} | ${run.status} | ${fixed(run.requestsPerSecond, 0)} | ${fixed(run.requestsPerCpuSecond, 0)} | ${fixed(run.mibPerSecond, 0)} | ${fixed(run.peakRssMiB, 1)} | ${fixed(run.rssGrowthMiB, 1)} |`,
        );
      }
      for (const [kind, corralLabel] of [
        ["corral", "corral"],
        ["corral-sendfile", "corral sendfile"],
      ] as const) {
        const corral = find(kind, file.name, conditional);
        for (const other of ["bun-file", "bun-routes"] as const) {
          const bun = find(other, file.name, conditional);
          if (
            corral === undefined ||
            bun === undefined ||
            corral.error !== null ||
            bun.error !== null
          )
            continue;
          const label = other === "bun-file" ? "Bun.file" : "static routes";
          goals.push(
            `  ${name}: ${corralLabel} / ${label}: ${(corral.requestsPerCpuSecond / bun.requestsPerCpuSecond).toFixed(2)}x req per CPU-s, ` +
              `${(corral.requestsPerSecond / bun.requestsPerSecond).toFixed(2)}x req/s, ` +
              `${(corral.mibPerSecond / bun.mibPerSecond).toFixed(2)}x MiB/s, peak RSS ${corral.peakRssMiB.toFixed(1)} vs ${bun.peakRssMiB.toFixed(1)} MiB`,
          );
        }
      }
    }
  }
  for (const [kind, label] of [
    ["corral", "corral"],
    ["corral-sendfile", "corral sendfile"],
  ] as const) {
    const large = find(kind, "10m.bin", false);
    if (large === undefined || large.error !== null) continue;
    goals.push(
      `  20 concurrent downloads of 10m.bin: ${label} RSS growth ${large.rssGrowthMiB.toFixed(1)} MiB ` +
        `(goal < ${staticRssGrowthCapMiB} MiB): ${large.rssGrowthMiB < staticRssGrowthCapMiB ? "met" : "NOT met"}`,
    );
  }
  return [
    "static: keep-alive GETs of one file (64 connections; 20 for 10m.bin); 304 rows send If-None-Match",
    "| file        | server             | status | req/s | req per CPU-s | MiB/s | peak RSS (MiB) | RSS growth (MiB) |",
    "| ----------- | ------------------ | ------ | ----- | ------------- | ----- | -------------- | ---------------- |",
    ...rows,
    ...goals,
  ].join("\n");
}

function fixed(value: number, digits: number): string {
  return value.toFixed(digits);
}
