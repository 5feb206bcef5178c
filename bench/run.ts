// `bun run bench`: corral-engine against Bun.serve, and the corral App pipeline against the bare
// engine, Bun.serve, Hono and Elysia, under wrk, each server in its own process; then N idle SSE
// streams on a corral App, and attacks that try to deny other clients service. See
// bench/README.md for what is measured and how.
import { mkdirSync, writeFileSync } from "node:fs";
import { type AbuseRun, runAbuse } from "./abuse.ts";
import { formatAbuse } from "./abuse-report.ts";
import { type RunSummary, summarise } from "./aggregate.ts";
import { type CoresRun, formatCores, runCores } from "./cores.ts";
import { measureInterleaved, measureRun, type RunPlan, type RunResult } from "./measure.ts";
import { type BenchOptions, parseOptions } from "./options.ts";
import { choosePinning, type Pinning } from "./pinning.ts";
import { clockTicksPerSecond, toMiB } from "./process-metrics.ts";
import { type FanOutResult, formatRedisSse, runRedisSse } from "./redis-sse.ts";
import { formatRssCheck, formatSse, formatTable, formatTargets, formatWarnings } from "./report.ts";
import { rotate } from "./rotate.ts";
import { rssCheckScenario, type Scenario, type ScenarioServer, scenarios } from "./scenarios.ts";
import { runSse, type SseResult } from "./sse.ts";
import { formatStatic, runStatic, type StaticRun } from "./static.ts";
import {
  evaluateTargets,
  type RssCheck,
  ratio,
  rssCheckFrom,
  type TargetResult,
} from "./targets.ts";
import { runTechEmpower, type TechEmpowerRun } from "./techempower/run-techempower.ts";
import { formatTechEmpower, techEmpowerGoals } from "./techempower/techempower-report.ts";
import { formatUpload, runUpload, type UploadRun } from "./upload.ts";
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
  const selected = scenarios.filter((scenario) => options.only.includes(scenario.id));
  const runSseScenario = options.only.includes("sse");
  const runRedisSseScenario = options.only.includes("redis-sse");
  const runAbuseScenario = options.only.includes("abuse");
  let runCoresScenario = options.only.includes("cores");
  const runUploadScenario = options.only.includes("upload");
  let runTechEmpowerScenario = options.only.includes("techempower");
  let runStaticScenario = options.only.includes("static");
  let wrkScenarios = selected;
  let withRssCheck = options.only.includes("rss");
  if (
    (selected.length > 0 || withRssCheck || runCoresScenario || runTechEmpowerScenario) &&
    !wrkAvailable()
  ) {
    console.log(
      "bench: wrk is not installed, so there is no HTTP load to measure; skipping it.\n" +
        "       Install it (e.g. `apt-get install -y wrk`) and run `bun run bench` again.",
    );
    if (!runSseScenario && !runRedisSseScenario && !runAbuseScenario && !runUploadScenario) {
      return 0;
    }
    wrkScenarios = [];
    withRssCheck = false;
    runCoresScenario = false;
    runTechEmpowerScenario = false;
    runStaticScenario = false;
  }
  const pinning = choosePinning();
  const common = { pinning, ticksPerSecond: clockTicksPerSecond(), repoRoot };
  const wrkPlan =
    wrkScenarios.length > 0 || withRssCheck
      ? `${options.repeats} x ${options.durationSeconds} s per scenario and server, each after ` +
        `${options.warmupSeconds} s warm-up; `
      : "";
  console.log(`bench: ${options.only.join(", ")}; ${wrkPlan}${pinning.description}`);

  const allRuns: RunResult[] = [];
  const summaries: RunSummary[] = [];
  // Servers of a scenario take turns this long (shorter runs, as `--quick`, are one turn).
  const sliceSeconds = Math.min(1, options.durationSeconds);
  for (const scenario of wrkScenarios) {
    for (let repeat = 0; repeat < options.repeats; repeat++) {
      // Rotate which server goes first, so that drift on the machine hits them all alike; within
      // the repeat they take turns of a second each (measureInterleaved).
      const order: readonly ScenarioServer[] = rotate(scenario.servers, repeat);
      process.stdout.write(
        `  ${scenario.title}: ${order.length} servers in turns of ${sliceSeconds} s, ` +
          `${options.durationSeconds} s each\n`,
      );
      const runs = await measureInterleaved({
        ...common,
        scenario,
        servers: order,
        durationSeconds: options.durationSeconds,
        warmupSeconds: options.warmupSeconds,
        repeat,
        sliceSeconds,
      });
      for (const run of runs) logRun(run, scenario);
      allRuns.push(...runs);
    }
    for (const server of scenario.servers) {
      summaries.push(
        summarise(
          allRuns.filter((run) => run.scenario === scenario.id && run.server === server.kind),
        ),
      );
    }
  }

  let rssRun: RunResult | null = null;
  let rssCheck: RssCheck | null = null;
  if (withRssCheck) {
    rssRun = await measureLogged({
      ...common,
      scenario: rssCheckScenario,
      server: rssCheckScenario.servers.find((server) => server.kind === "corral-engine")!,
      durationSeconds: options.rssCheckSeconds,
      warmupSeconds: 0,
      repeat: 0,
    });
    rssCheck = rssCheckFrom(rssRun, options.rssCheckSeconds);
  }

  let sse: SseResult | null = null;
  let sseError: string | null = null;
  if (runSseScenario) {
    process.stdout.write(`  idle SSE streams / corral App, ${options.sseStreams} streams ... `);
    try {
      sse = await runSse({ streams: options.sseStreams, pinning, repoRoot });
      console.log(
        `publish to last arrival ${sse.broadcast.publishToLastMs.toFixed(1)} ms, ` +
          `${sse.rssPerStreamKiB.toFixed(2)} KiB RSS per stream`,
      );
    } catch (error) {
      sseError = (error as Error).message;
      console.log("FAILED");
    }
  }
  let redisSse: FanOutResult[] | null = null;
  if (runRedisSseScenario) {
    process.stdout.write(
      `  ${options.sseStreams} SSE streams, in-process and on 2 instances through Redis ... `,
    );
    try {
      redisSse = await runRedisSse({ streams: options.sseStreams, pinning, repoRoot });
      console.log("done");
    } catch (error) {
      sseError = `${sseError ?? ""}${(error as Error).message}`;
      console.log("FAILED");
    }
  }
  let abuse: AbuseRun[] | null = null;
  if (runAbuseScenario) {
    abuse = await runAbuse({
      windowSeconds: options.durationSeconds,
      pinning,
      repoRoot,
      log: (text) => process.stdout.write(text),
    });
  }
  /** The plan of the scenarios that repeat wrk loads over processes of their own. */
  const repeatedLoads = {
    ...common,
    durationSeconds: options.durationSeconds,
    warmupSeconds: options.warmupSeconds,
    repeats: options.repeats,
    log: (text: string) => process.stdout.write(text),
  };
  let cores: CoresRun[] | null = null;
  if (runCoresScenario) {
    cores = await runCores(repeatedLoads);
  }
  let upload: UploadRun[] | null = null;
  if (runUploadScenario) {
    upload = await runUpload({
      mebibytes: options.quick ? 128 : 1024,
      pinning,
      repoRoot,
      log: (text) => process.stdout.write(text),
    });
  }
  let techEmpower: TechEmpowerRun | null = null;
  if (runTechEmpowerScenario) {
    techEmpower = await runTechEmpower(repeatedLoads);
  }
  let staticRuns: StaticRun[] | null = null;
  if (runStaticScenario) {
    staticRuns = await runStatic({
      ...common,
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      log: (text) => process.stdout.write(text),
    });
  }
  const targets = evaluateTargets(summaries, allRuns, rssCheck);

  if (summaries.length > 0) {
    console.log(
      `\nmedians of ${options.repeats} run(s) of ${options.durationSeconds} s ` +
        `(CPU and RSS are the server process's; a ratio row is the median of the ratios within ` +
        `each repeat):\n${formatTable(wrkScenarios, summaries, allRuns)}\n`,
    );
  }
  for (const warning of formatWarnings(wrkScenarios, allRuns)) console.log(`warning: ${warning}`);
  printCorralCounters(allRuns);
  if (rssCheck !== null) console.log(formatRssCheck(rssCheck));
  const corralRuns = rssRun === null ? allRuns : [...allRuns, rssRun];
  const budgets = new Set(corralRuns.flatMap((run) => (run.corral ? [run.corral.budget] : [])));
  for (const budget of budgets) console.log(budget);
  if (sse !== null) console.log(`\n${formatSse(sse)}`);
  if (redisSse !== null) console.log(`\n${formatRedisSse(redisSse)}`);
  if (sseError !== null) console.log(`\n${sseError}`);
  if (abuse !== null) console.log(`\n${formatAbuse(abuse)}`);
  if (cores !== null) {
    console.log(
      `\ncores: hello keep-alive, 64 conns, medians of ${options.repeats} run(s) of ` +
        `${options.durationSeconds} s; 1 process pinned to core 0 with wrk on core 1, 2 processes ` +
        `and wrk unpinned on ${pinning.cores} cores; CPU summed over the group:\n${formatCores(cores)}`,
    );
  }
  if (upload !== null) console.log(`\n${formatUpload(upload)}`);
  if (techEmpower !== null) console.log(formatTechEmpower(techEmpower));
  if (staticRuns !== null) console.log(`\n${formatStatic(staticRuns)}`);
  if (targets.length > 0) console.log(`\n${formatTargets(targets)}`);

  writeResults({
    options,
    pinning,
    summaries,
    ratios: ratioTable(wrkScenarios, allRuns),
    allRuns,
    rssRun,
    rssCheck,
    sse,
    sseError,
    redisSse,
    abuse,
    cores,
    upload,
    techEmpower:
      techEmpower === null ? null : { ...techEmpower, goals: techEmpowerGoals(techEmpower) },
    staticRuns,
    targets,
  });
  console.log(`\nresults: ${resultsPath}`);
  const abuseFailed = abuse?.some((run) => run.error !== null) ?? false;
  const uploadFailed = upload?.some((run) => run.error !== null) ?? false;
  const techEmpowerFailed = (techEmpower?.errors.length ?? 0) > 0;
  const staticFailed = staticRuns?.some((run) => run.error !== null) ?? false;
  return sseError === null && !abuseFailed && !uploadFailed && !staticFailed && !techEmpowerFailed
    ? 0
    : 1;
}

/** Every ratio row of the table as numbers, for latest.json. */
function ratioTable(chosen: typeof scenarios, allRuns: readonly RunResult[]) {
  return chosen.flatMap((scenario) =>
    scenario.ratios.map((row) => {
      const of = (metric: Parameters<typeof ratio>[2]) =>
        ratio(allRuns, scenario.id, metric, row.numerator, row.denominator);
      return {
        scenario: scenario.id,
        ratio: row.label,
        requestsPerSecond: of("requestsPerSecond"),
        requestsPerCpuSecond: of("requestsPerCpuSecond"),
        p99Ms: of("p99Ms"),
        peakRssMiB: of("peakRssMiB"),
      };
    }),
  );
}

/** Runs one measurement, printing a progress line. */
async function measureLogged(plan: RunPlan): Promise<RunResult> {
  const run = await measureRun(plan);
  logRun(run, plan.scenario);
  return run;
}

function logRun(run: RunResult, scenario: Scenario): void {
  const mib = scenario.id === "big" ? `, ${run.mibPerSecond.toFixed(0)} MiB/s` : "";
  console.log(
    `  ${scenario.title} / ${run.serverLabel}, ${run.durationSeconds.toFixed(0)} s ... ` +
      `${Math.round(run.requestsPerSecond).toLocaleString("en-US")} req/s${mib}, ` +
      `CPU ${run.cpuSeconds.toFixed(2)} s, peak RSS ${run.peakRssMiB.toFixed(1)} MiB`,
  );
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
  readonly ratios: ReturnType<typeof ratioTable>;
  readonly allRuns: readonly RunResult[];
  readonly rssRun: RunResult | null;
  readonly rssCheck: RssCheck | null;
  readonly sse: SseResult | null;
  readonly sseError: string | null;
  readonly redisSse: readonly FanOutResult[] | null;
  readonly abuse: readonly AbuseRun[] | null;
  readonly cores: readonly CoresRun[] | null;
  readonly upload: readonly UploadRun[] | null;
  readonly techEmpower: (TechEmpowerRun & { goals: ReturnType<typeof techEmpowerGoals> }) | null;
  readonly staticRuns: readonly StaticRun[] | null;
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
