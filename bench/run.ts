// `bun run bench`: corral-engine against Bun.serve under wrk, each server in its own process.
// See bench/README.md for what is measured and how.
import { mkdirSync, writeFileSync } from "node:fs";
import { type RunSummary, summarise } from "./aggregate.ts";
import { measureRun, type RunPlan, type RunResult } from "./measure.ts";
import { type BenchOptions, parseOptions } from "./options.ts";
import { choosePinning, type Pinning } from "./pinning.ts";
import { clockTicksPerSecond, toMiB } from "./process-metrics.ts";
import { formatRssCheck, formatTable, formatTargets, formatWarnings } from "./report.ts";
import {
  rssCheckScenario,
  type ServerKind,
  scenarios,
  serverKinds,
  serverLabels,
} from "./scenarios.ts";
import { evaluateTargets, type RssCheck, rssCheckFrom, type TargetResult } from "./targets.ts";
import { wrkAvailable } from "./wrk.ts";

const repoRoot = `${import.meta.dir}/..`;
const resultsPath = `${import.meta.dir}/results/latest.json`;

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(Bun.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  if (!wrkAvailable()) {
    console.log(
      "bench: wrk is not installed, so there is nothing to measure; skipping.\n" +
        "       Install it (e.g. `apt-get install -y wrk`) and run `bun run bench` again.",
    );
    return 0;
  }
  const pinning = choosePinning();
  const common = { pinning, ticksPerSecond: clockTicksPerSecond(), repoRoot };
  console.log(
    `bench: ${options.repeats} x ${options.durationSeconds} s per scenario and server, each ` +
      `after ${options.warmupSeconds} s warm-up; ${pinning.description}`,
  );

  const allRuns: RunResult[] = [];
  const summaries: RunSummary[] = [];
  for (const scenario of scenarios) {
    for (let repeat = 0; repeat < options.repeats; repeat++) {
      // Alternate which server goes first, so that drift on the machine hits both alike.
      const order: readonly ServerKind[] =
        repeat % 2 === 0 ? serverKinds : [...serverKinds].reverse();
      for (const server of order) {
        allRuns.push(
          await measureLogged({
            ...common,
            scenario,
            server,
            durationSeconds: options.durationSeconds,
            warmupSeconds: options.warmupSeconds,
          }),
        );
      }
    }
    for (const server of serverKinds) {
      summaries.push(
        summarise(allRuns.filter((run) => run.scenario === scenario.id && run.server === server)),
      );
    }
  }

  const rssRun = await measureLogged({
    ...common,
    scenario: rssCheckScenario,
    server: "corral-engine",
    durationSeconds: options.rssCheckSeconds,
    warmupSeconds: 0,
  });
  const rssCheck = rssCheckFrom(rssRun, options.rssCheckSeconds);
  const targets = evaluateTargets(summaries, allRuns, rssCheck);

  console.log(
    `\nmedians of ${options.repeats} run(s) of ${options.durationSeconds} s ` +
      `(CPU and RSS are the server process's):\n${formatTable(scenarios, summaries)}\n`,
  );
  for (const warning of formatWarnings(allRuns)) console.log(`warning: ${warning}`);
  printCorralCounters(allRuns);
  console.log(formatRssCheck(rssCheck));
  const budgets = new Set(allRuns.flatMap((run) => (run.corral ? [run.corral.budget] : [])));
  for (const budget of budgets) console.log(budget);
  console.log(`\n${formatTargets(targets)}`);

  writeResults({ options, pinning, summaries, allRuns, rssRun, rssCheck, targets });
  console.log(`\nresults: ${resultsPath}`);
  return 0;
}

/** Runs one measurement, printing a progress line. */
async function measureLogged(plan: RunPlan): Promise<RunResult> {
  process.stdout.write(
    `  ${plan.scenario.title} / ${serverLabels[plan.server]}, ${plan.durationSeconds} s ... `,
  );
  const run = await measureRun(plan);
  const mib = plan.scenario.id === "big" ? `, ${run.mibPerSecond.toFixed(0)} MiB/s` : "";
  console.log(
    `${Math.round(run.requestsPerSecond).toLocaleString("en-US")} req/s${mib}, ` +
      `CPU ${run.cpuSeconds.toFixed(2)} s, peak RSS ${run.peakRssMiB.toFixed(1)} MiB`,
  );
  return run;
}

/** The copy counters of the corral 5 MiB server, summed over its runs (whole process lives). */
function printCorralCounters(allRuns: readonly RunResult[]): void {
  const bigRuns = allRuns.filter((run) => run.scenario === "big" && run.corral?.stats);
  if (bigRuns.length === 0) return;
  let copied = 0;
  let borrowed = 0;
  let responses = 0;
  for (const run of bigRuns) {
    const stats = run.corral!.stats!;
    copied += stats.bytesCopiedToStaging;
    borrowed += stats.bytesBorrowed;
    responses += stats.responses["2xx"];
  }
  console.log(
    `corral 5 MiB server counters over ${bigRuns.length} process(es), warm-up included: ` +
      `bytesCopiedToStaging ${copied}, bytesBorrowed ${borrowed} ` +
      `(${toMiB(borrowed).toFixed(0)} MiB), 2xx responses ${responses}`,
  );
}

interface Results {
  readonly options: BenchOptions;
  readonly pinning: Pinning;
  readonly summaries: readonly RunSummary[];
  readonly allRuns: readonly RunResult[];
  readonly rssRun: RunResult;
  readonly rssCheck: RssCheck;
  readonly targets: readonly TargetResult[];
}

function writeResults(results: Results): void {
  mkdirSync(`${import.meta.dir}/results`, { recursive: true });
  const { pinning, ...rest } = results;
  const document = {
    generatedAt: new Date().toISOString(),
    bunVersion: Bun.version,
    pinning: { cores: pinning.cores, description: pinning.description },
    ...rest,
  };
  writeFileSync(resultsPath, `${JSON.stringify(document, null, 2)}\n`);
}

process.exitCode = await main();
