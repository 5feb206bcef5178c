import type { RunResult } from "./measure.ts";

/** The median of the finite values, or NaN when there are none. */
export function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Repeated runs of one scenario and server, reduced to one row. */
export interface RunSummary extends RunResult {
  /** How many runs the medians are taken over. */
  readonly repeats: number;
}

/**
 * Each metric of the table is the median over the runs, taken metric by metric; the other
 * fields (counters, commands) are those of the run with the median throughput.
 */
export function summarise(runs: readonly RunResult[]): RunSummary {
  const byThroughput = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const middle = byThroughput[(byThroughput.length - 1) >> 1];
  if (middle === undefined) throw new Error("no runs to summarise");
  const of = (metric: keyof RunResult & MedianMetric) => median(runs.map((run) => run[metric]));
  return {
    ...middle,
    repeats: runs.length,
    requestsPerSecond: of("requestsPerSecond"),
    p50Ms: of("p50Ms"),
    p99Ms: of("p99Ms"),
    mibPerSecond: of("mibPerSecond"),
    cpuSeconds: of("cpuSeconds"),
    requestsPerCpuSecond: of("requestsPerCpuSecond"),
    peakRssMiB: of("peakRssMiB"),
    rssAtEndMiB: of("rssAtEndMiB"),
  };
}

type MedianMetric =
  | "requestsPerSecond"
  | "p50Ms"
  | "p99Ms"
  | "mibPerSecond"
  | "cpuSeconds"
  | "requestsPerCpuSecond"
  | "peakRssMiB"
  | "rssAtEndMiB";
