import { median } from "./aggregate.ts";
import type { RunResult } from "./measure.ts";
import { toMiB } from "./process-metrics.ts";
import { type ScenarioId, type ServerKind, serverLabels } from "./scenarios.ts";

/** The corral RSS check: resident memory after a longer plain keep-alive load. */
export interface RssCheck {
  readonly loadSeconds: number;
  readonly requestsPerSecond: number;
  readonly rssMiB: number;
  readonly peakRssMiB: number;
  readonly reservedMiB: number;
  /** Reserved budget + 48 MiB of runtime (Bun, JIT, heap) headroom. */
  readonly limitMiB: number;
  readonly budget: string;
}

/** Headroom over the reserved budget that the RSS check allows for the runtime itself. */
export const runtimeHeadroomMiB = 48;

export function rssCheckFrom(run: RunResult, loadSeconds: number): RssCheck {
  const reservedMiB = toMiB(run.corral?.reservedBytes ?? Number.NaN);
  return {
    loadSeconds,
    requestsPerSecond: run.requestsPerSecond,
    rssMiB: run.rssAtEndMiB,
    peakRssMiB: run.peakRssMiB,
    reservedMiB,
    limitMiB: reservedMiB + runtimeHeadroomMiB,
    budget: run.corral?.budget ?? "",
  };
}

/** One goal and whether this run met it. */
export interface TargetResult {
  readonly name: string;
  readonly goal: string;
  readonly measured: string;
  readonly met: boolean;
}

/**
 * `numerator` / `denominator` (corral-engine / Bun.serve unless named) for one metric: the median,
 * over the repeats, of the ratio between the two runs of the same repeat. Both runs of a pair are
 * at most one round of servers apart, so a machine that slows down or speeds up between repeats
 * moves both sides of each ratio instead of skewing a ratio of medians.
 */
export function ratio(
  runs: readonly RunResult[],
  scenario: ScenarioId,
  metric: keyof RunMetrics,
  numerator: ServerKind = "corral-engine",
  denominator: ServerKind = "bun-serve",
): number {
  const ratios: number[] = [];
  for (const top of runs) {
    if (top.scenario !== scenario || top.server !== numerator) continue;
    const bottom = runs.find(
      (run) => run.scenario === scenario && run.server === denominator && run.repeat === top.repeat,
    );
    if (bottom !== undefined) ratios.push(top[metric] / bottom[metric]);
  }
  return median(ratios);
}

/** The numeric metrics a ratio can be taken of. */
export type RunMetrics = Pick<
  RunResult,
  | "requestsPerSecond"
  | "p99Ms"
  | "mibPerSecond"
  | "cpuSeconds"
  | "requestsPerCpuSecond"
  | "peakRssMiB"
>;

/**
 * Checks the performance goals of the engine and the App: ratios paired by repeat from `allRuns`
 * (see `ratio`), RSS from the median rows in `summaries`, the copy counters from every corral
 * 5 MiB run in `allRuns`. Goals whose scenarios did not run (`--only`) are left out.
 */
export function evaluateTargets(
  summaries: readonly RunResult[],
  allRuns: readonly RunResult[],
  rss: RssCheck | null,
): TargetResult[] {
  const results: TargetResult[] = [];
  const ran = (scenario: ScenarioId) => summaries.some((run) => run.scenario === scenario);
  const atLeast = (goals: readonly RatioGoal[]) => {
    for (const goal of goals) {
      if (!ran(goal.scenario)) continue;
      const value = ratio(allRuns, goal.scenario, goal.metric, goal.numerator, goal.denominator);
      results.push({
        name: goal.name,
        goal: `>= ${goal.atLeast}x`,
        measured: `${value.toFixed(2)}x`,
        met: value >= goal.atLeast,
      });
    }
  };

  atLeast(engineGoals);
  if (ran("big")) {
    const corralBigRuns = allRuns.filter(
      (run) => run.scenario === "big" && run.server === "corral-engine",
    );
    const copied = sumCounter(corralBigRuns, "bytesCopiedToStaging");
    const borrowed = sumCounter(corralBigRuns, "bytesBorrowed");
    results.push({
      name: "5 MiB borrowed body: payload bytes copied to staging",
      goal: "0",
      measured: `${copied} copied, ${toMiB(borrowed).toFixed(0)} MiB borrowed`,
      met: copied === 0 && borrowed > 0,
    });
    const big = summaries.find((run) => run.scenario === "big" && run.server === "corral-engine");
    const bunBig = summaries.find((run) => run.scenario === "big" && run.server === "bun-serve");
    if (big !== undefined && bunBig !== undefined) {
      results.push({
        name: "5 MiB borrowed body: peak RSS below Bun.serve's",
        goal: `< ${bunBig.peakRssMiB.toFixed(1)} MiB`,
        measured: `${big.peakRssMiB.toFixed(1)} MiB`,
        met: big.peakRssMiB < bunBig.peakRssMiB,
      });
    }
  }
  if (rss !== null) {
    results.push({
      name: `RSS after ${rss.loadSeconds} s of load <= reserved + ${runtimeHeadroomMiB} MiB`,
      goal: `<= ${rss.limitMiB.toFixed(1)} MiB`,
      measured: `${rss.rssMiB.toFixed(1)} MiB`,
      met: rss.rssMiB <= rss.limitMiB,
    });
  }
  atLeast(appGoals);
  return results;
}

/** A goal on the ratio of one metric between two servers of a scenario. */
interface RatioGoal {
  readonly name: string;
  readonly scenario: ScenarioId;
  readonly metric: keyof RunMetrics;
  readonly numerator?: ServerKind;
  readonly denominator?: ServerKind;
  readonly atLeast: number;
}

/** corral-engine against Bun.serve. */
const engineGoals: readonly RatioGoal[] = [
  {
    name: "plain keep-alive: requests per server CPU-second vs Bun.serve",
    scenario: "plain",
    metric: "requestsPerCpuSecond",
    atLeast: 1.0,
  },
  {
    name: "16-deep pipelined: requests/s vs Bun.serve",
    scenario: "pipelined",
    metric: "requestsPerSecond",
    atLeast: 5,
  },
  {
    name: "5 MiB borrowed body: MiB/s vs Bun.serve",
    scenario: "big",
    metric: "mibPerSecond",
    atLeast: 0.9,
  },
];

/** The App against the bare engine and against Bun.serve. */
const appGoals: readonly RatioGoal[] = [
  {
    name: "App, plain keep-alive: requests per server CPU-second vs bare engine",
    scenario: "app-plain",
    metric: "requestsPerCpuSecond",
    numerator: "corral-app",
    denominator: "corral-engine",
    atLeast: 0.9,
  },
  {
    name: "App, 16-deep pipelined: requests/s vs bare engine",
    scenario: "app-pipelined",
    metric: "requestsPerSecond",
    numerator: "corral-app",
    denominator: "corral-engine",
    atLeast: 0.9,
  },
  {
    name: "App, plain keep-alive: requests per server CPU-second vs Bun.serve",
    scenario: "app-plain",
    metric: "requestsPerCpuSecond",
    numerator: "corral-app",
    denominator: "bun-serve",
    atLeast: 1.0,
  },
  {
    name: "App, 16-deep pipelined: requests/s vs Bun.serve",
    scenario: "app-pipelined",
    metric: "requestsPerSecond",
    numerator: "corral-app",
    denominator: "bun-serve",
    atLeast: 5,
  },
  // The scheduler issue's goals (issue 19, point 4), all per server CPU-second.
  ...(["bun-serve", "hono", "elysia"] as const).map((peer) => ({
    name: `issue 19: App, plain keep-alive: requests per server CPU-second vs ${serverLabels[peer]}`,
    scenario: "app-plain" as const,
    metric: "requestsPerCpuSecond" as const,
    numerator: "corral-app" as const,
    denominator: peer,
    atLeast: peer === "bun-serve" ? 1.25 : 1.35,
  })),
  ...(["app-plain", "app-pipelined"] as const).map((scenario) => ({
    name: `issue 19: App, ${scenario === "app-plain" ? "plain keep-alive" : "16-deep pipelined"}: requests per server CPU-second vs bare engine`,
    scenario,
    metric: "requestsPerCpuSecond" as const,
    numerator: "corral-app" as const,
    denominator: "corral-engine" as const,
    atLeast: 0.95,
  })),
];

/** A corral counter summed over runs; NaN when a run has no counters. */
function sumCounter(
  runs: readonly RunResult[],
  counter: "bytesCopiedToStaging" | "bytesBorrowed",
): number {
  let total = 0;
  for (const run of runs) total += run.corral?.stats?.[counter] ?? Number.NaN;
  return runs.length === 0 ? Number.NaN : total;
}
