import type { EngineStats } from "corral/engine";
import { median } from "./aggregate.ts";
import type { Pinning } from "./pinning.ts";
import { RssSampler, readCpuSeconds, readRss } from "./process-metrics.ts";
import { rotate } from "./rotate.ts";
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

/** How to measure several servers of one scenario in turn (see `measureInterleaved`). */
export interface InterleavedPlan extends Omit<RunPlan, "server"> {
  /** The servers, in the order of the first round. */
  readonly servers: readonly ScenarioServer[];
  /** The longest load one server gets at a time, in seconds. */
  readonly sliceSeconds: number;
}

/** One server of an interleaved measurement, and what its slices added up to. */
interface Subject {
  readonly server: ScenarioServer;
  readonly process: ServerProcess;
  readonly url: string;
  readonly sampler: RssSampler;
  readonly slices: WrkResult[];
  cpuSeconds: number;
  rssAtEndMiB: number;
}

/**
 * Measures one server alone: started in its own process, one response checked, warmed up, then
 * `durationSeconds` of load in one piece. See `measureInterleaved`.
 */
export async function measureRun(plan: RunPlan): Promise<RunResult> {
  const [result] = await measureInterleaved({
    ...plan,
    servers: [plan.server],
    sliceSeconds: plan.durationSeconds,
  });
  return result!;
}

/**
 * Measures the servers of one scenario together: each is started in its own process (all
 * pinned to the server core, where only the loaded one works), checked with one response and
 * warmed up; then they take turns, `sliceSeconds` of load each, in an order rotated every round,
 * until each had `durationSeconds`. This machine's speed changes by 20-70% within seconds to
 * minutes: measured one after the other for 5 s each, two servers of a repeat could meet
 * different phases, and a ratio between them moved by a third from run to run; in turns of a
 * second, every phase falls on all of them. Per server: wrk's requests and the server's CPU time
 * (from /proc/<pid>/stat) summed over its slices, the median of its slices' latencies, its RSS
 * (VmRSS every 100 ms while loaded, VmHWM at the end). Every server is always stopped.
 */
export async function measureInterleaved(plan: InterleavedPlan): Promise<RunResult[]> {
  const { scenario, pinning } = plan;
  const subjects: Subject[] = [];
  try {
    for (const server of plan.servers) {
      const process = await ServerProcess.start({
        script: `${import.meta.dir}/servers/${server.script}`,
        pinPrefix: pinning.server,
        cwd: plan.repoRoot,
      });
      const url = `http://127.0.0.1:${process.port}${scenario.path}`;
      const sampler = new RssSampler(process.pid);
      subjects.push({ server, process, url, sampler, slices: [], cpuSeconds: 0, rssAtEndMiB: 0 });
      await checkResponse(url, scenario);
    }
    const load = {
      connections: scenario.connections,
      pipelineDepth: scenario.pipelineDepth,
      pinPrefix: pinning.load,
      ...(scenario.requestHeaders === undefined ? {} : { headers: scenario.requestHeaders }),
    };
    if (plan.warmupSeconds > 0) {
      for (const subject of subjects) {
        await runWrk({ ...load, url: subject.url, durationSeconds: plan.warmupSeconds });
      }
    }
    const rounds = Math.max(1, Math.round(plan.durationSeconds / plan.sliceSeconds));
    const sliceSeconds = plan.durationSeconds / rounds;
    for (let round = 0; round < rounds; round++) {
      for (const subject of rotate(subjects, round)) {
        const pid = subject.process.pid;
        const cpuBefore = readCpuSeconds(pid, plan.ticksPerSecond);
        subject.sampler.start(100);
        subject.slices.push(
          await runWrk({ ...load, url: subject.url, durationSeconds: sliceSeconds }),
        );
        subject.sampler.stop();
        subject.cpuSeconds += readCpuSeconds(pid, plan.ticksPerSecond) - cpuBefore;
        subject.rssAtEndMiB = readRss(pid).rssMiB;
      }
    }
    const results: RunResult[] = [];
    for (const subject of subjects) results.push(await finish(subject, plan));
    return results;
  } finally {
    for (const subject of subjects) await subject.process.stop();
  }
}

/** A subject's slices as one result; stops its server to read what it reported. */
async function finish(subject: Subject, plan: InterleavedPlan): Promise<RunResult> {
  const { process, slices, server } = subject;
  const peakMiB = readRss(process.pid).peakMiB;
  const sampled = subject.sampler.stop();
  const info = process.jsonLine<{ budget: string; reservedBytes: number }>("INFO ");
  await process.stop();
  const corral: CorralReport | null =
    info === undefined ? null : { ...info, stats: process.jsonLine<EngineStats>("STATS ") ?? null };
  const sum = (value: (slice: WrkResult) => number) =>
    slices.reduce((total, slice) => total + value(slice), 0);
  const requests = sum((slice) => slice.requests);
  const durationSeconds = sum((slice) => slice.durationSeconds);
  return {
    scenario: plan.scenario.id,
    server: server.kind,
    serverLabel: server.label,
    repeat: plan.repeat,
    requests,
    durationSeconds,
    requestsPerSecond: requests / durationSeconds,
    p50Ms: median(slices.map((slice) => slice.p50Ms)),
    p99Ms: median(slices.map((slice) => slice.p99Ms)),
    mibPerSecond: sum((slice) => slice.bytesRead) / mebibyte / durationSeconds,
    socketErrors: {
      connect: sum((slice) => slice.socketErrors.connect),
      read: sum((slice) => slice.socketErrors.read),
      write: sum((slice) => slice.socketErrors.write),
      timeout: sum((slice) => slice.socketErrors.timeout),
    },
    non2xx3xx: sum((slice) => slice.non2xx3xx),
    cpuSeconds: subject.cpuSeconds,
    requestsPerCpuSecond: subject.cpuSeconds > 0 ? requests / subject.cpuSeconds : Number.NaN,
    peakRssMiB: Math.max(sampled.maxMiB, peakMiB),
    sampledPeakRssMiB: sampled.maxMiB,
    rssSamples: sampled.samples,
    rssAtEndMiB: subject.rssAtEndMiB,
    wrkCommand: slices[slices.length - 1]!.command,
    corral,
  };
}

const mebibyte = 1024 * 1024;

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
