import type { EngineStats } from "corral/engine";
import type { Pinning } from "./pinning.ts";
import { RssSampler, readCpuSeconds, readRss } from "./process-metrics.ts";
import type { Scenario, ScenarioServer, ServerKind } from "./scenarios.ts";
import { ServerProcess } from "./server-process.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

/** What a corral bench server reports about itself. */
export interface CorralReport {
  readonly budget: string;
  readonly reservedBytes: number;
  /** Counters at the end of the run (cumulative: the check request and warm-up included). */
  readonly stats: EngineStats | null;
}

/** The measurements of one server under one scenario. */
export interface RunResult {
  readonly scenario: Scenario["id"];
  readonly server: ServerKind;
  readonly serverLabel: string;
  /** Which repeat of the scenario this run belongs to (0 for a single run). */
  readonly repeat: number;
  readonly requests: number;
  readonly durationSeconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly mibPerSecond: number;
  readonly socketErrors: WrkResult["socketErrors"];
  readonly non2xx3xx: number;
  /** Server user + system CPU seconds during the measured load only. */
  readonly cpuSeconds: number;
  readonly requestsPerCpuSecond: number;
  /** Highest of the 100 ms VmRSS samples and VmHWM at the end, in MiB. */
  readonly peakRssMiB: number;
  readonly sampledPeakRssMiB: number;
  readonly rssSamples: number;
  /** VmRSS right after the load stopped, in MiB. */
  readonly rssAtEndMiB: number;
  readonly wrkCommand: string;
  readonly corral: CorralReport | null;
}

/** How to run one measurement. */
export interface RunPlan {
  readonly scenario: Scenario;
  readonly server: ScenarioServer;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  /** Which repeat of the scenario this is (0 for a single run). */
  readonly repeat: number;
  readonly pinning: Pinning;
  readonly ticksPerSecond: number;
  readonly repoRoot: string;
}

/**
 * Starts the server in its own process, checks one response, warms it up, then measures: wrk's
 * throughput and latency, the server's CPU time (from /proc/<pid>/stat) and its RSS (VmRSS every
 * 100 ms, VmHWM at the end). The server is always stopped, and every step is time-bounded.
 */
export async function measureRun(plan: RunPlan): Promise<RunResult> {
  const { scenario, server: subject, pinning } = plan;
  const server = await ServerProcess.start({
    script: `${import.meta.dir}/servers/${subject.script}`,
    pinPrefix: pinning.server,
    cwd: plan.repoRoot,
  });
  let stopped = false;
  try {
    const url = `http://127.0.0.1:${server.port}${scenario.path}`;
    await checkResponse(url, scenario);
    const load = {
      url,
      connections: scenario.connections,
      pipelineDepth: scenario.pipelineDepth,
      pinPrefix: pinning.load,
      ...(scenario.requestHeaders === undefined ? {} : { headers: scenario.requestHeaders }),
    };
    if (plan.warmupSeconds > 0) await runWrk({ ...load, durationSeconds: plan.warmupSeconds });

    const sampler = new RssSampler(server.pid);
    const cpuBefore = readCpuSeconds(server.pid, plan.ticksPerSecond);
    sampler.start(100);
    const wrk = await runWrk({ ...load, durationSeconds: plan.durationSeconds });
    const sampled = sampler.stop();
    const cpuSeconds = readCpuSeconds(server.pid, plan.ticksPerSecond) - cpuBefore;
    const rss = readRss(server.pid);

    const info = server.jsonLine<{ budget: string; reservedBytes: number }>("INFO ");
    await server.stop();
    stopped = true;
    const corral: CorralReport | null =
      info === undefined
        ? null
        : { ...info, stats: server.jsonLine<EngineStats>("STATS ") ?? null };
    return {
      scenario: scenario.id,
      server: subject.kind,
      serverLabel: subject.label,
      repeat: plan.repeat,
      requests: wrk.requests,
      durationSeconds: wrk.durationSeconds,
      requestsPerSecond: wrk.requestsPerSecond,
      p50Ms: wrk.p50Ms,
      p99Ms: wrk.p99Ms,
      mibPerSecond: wrk.transferMiBPerSecond,
      socketErrors: wrk.socketErrors,
      non2xx3xx: wrk.non2xx3xx,
      cpuSeconds,
      requestsPerCpuSecond: cpuSeconds > 0 ? wrk.requests / cpuSeconds : Number.NaN,
      peakRssMiB: Math.max(sampled.maxMiB, rss.peakMiB),
      sampledPeakRssMiB: sampled.maxMiB,
      rssSamples: sampled.samples,
      rssAtEndMiB: rss.rssMiB,
      wrkCommand: wrk.command,
      corral,
    };
  } finally {
    if (!stopped) await server.stop();
  }
}

/** Fetches one response and checks status, Content-Type and body before any load. */
async function checkResponse(url: string, scenario: Scenario): Promise<void> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const body = new Uint8Array(await response.arrayBuffer());
  const { expected } = scenario;
  const problems: string[] = [];
  if (response.status !== 200) problems.push(`status ${response.status}`);
  const contentType = response.headers.get("content-type");
  if (mediaType(contentType) !== mediaType(expected.contentType)) {
    problems.push(`Content-Type ${contentType}`);
  }
  if (body.length !== expected.bodyLength) problems.push(`body of ${body.length} bytes`);
  if (expected.bodyText !== undefined && new TextDecoder().decode(body) !== expected.bodyText) {
    problems.push("unexpected body text");
  }
  if (problems.length > 0) throw new Error(`GET ${url} answered wrongly: ${problems.join(", ")}`);
}

/** A Content-Type compared loosely: `text/plain;charset=UTF-8` is `text/plain; charset=utf-8`. */
function mediaType(value: string | null): string {
  return (value ?? "").toLowerCase().replace(/\s*;\s*/g, ";");
}
