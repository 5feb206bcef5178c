// `bun bench/alternate.ts [--rounds N] [--seconds S] [--connections C] [--pipeline D]
//   [--processes K] [--server-args "A B"] [--warm-seconds S] [--warm-path P] SERVER:PATH...`
//
// Compares a few servers on one request each, taking turns in short rounds: every server is
// started once (on the server core, as in bench/run.ts), then each round loads each of them in
// turn with wrk for `--seconds` (2 by default), `--rounds` times (4 by default). Requests and
// server CPU (user + system, from /proc) are summed per server over the rounds, so a drift of
// the machine's speed (20-70% within minutes here) falls on every server alike instead of on
// whichever ran in the slow minute. Meant for before/after comparisons of one change:
//
//   git worktree add /tmp/before HEAD~1
//   bun bench/alternate.ts /tmp/before/bench/servers/techempower-corral.ts:/fortunes \
//     bench/servers/techempower-corral.ts:/fortunes bench/servers/techempower-bun-serve.ts:/fortunes
//
// SERVER is a script that prints `READY <port>` (every script of bench/servers does); PATH is the
// request target; `--server-args` are given to every server (for example `--dir D` to the static
// servers, whose folder bench/servers/static-files.ts writes). Before the rounds every server is
// warmed with `--warm-seconds` (1 by default) of load on `--warm-path` (its own PATH by default):
// a route that answers a few dozen requests a second (a 10 MiB download) leaves the per-request
// code in the interpreter for a long time, and a few seconds of small requests on the same code
// let the JIT catch up. Traffic goes to 127.0.0.1 only; every wrk run is bounded by its duration.
//
// `--processes K` (1 by default) starts each SERVER K times and loads the K processes in turn:
// two processes of the same code differed by up to 8% here (a process's memory layout and JIT
// timing are its own), so one process of each of two versions can show a change that is not
// there. Each SERVER's figure is then the sum over its processes, and each process's own rate
// is printed beside it. Each later SERVER's line also gives the median and range of its ratio to
// the first within each round: two servers loaded seconds apart share the machine's state more
// than the sums over minutes do.
import { median } from "./aggregate.ts";
import { numberOption } from "./number-option.ts";
import { choosePinning } from "./pinning.ts";
import { clockTicksPerSecond, readCpuSeconds } from "./process-metrics.ts";
import { rotate } from "./rotate.ts";
import { ServerProcess } from "./server-process.ts";
import { serverArgsOption, serverTargets } from "./server-targets.ts";
import { runWrk, wrkAvailable } from "./wrk.ts";

interface Contender {
  readonly label: string;
  /** Which SERVER:PATH this process runs (its processes share a figure). */
  readonly group: number;
  readonly target: string;
  readonly server: ServerProcess;
  requests: number;
  cpuSeconds: number;
  /** Requests and CPU seconds of each round, for the ratios within a round. */
  readonly roundRequests: number[];
  readonly roundCpuSeconds: number[];
}

/** A group's rate in `round`: its processes' requests over their CPU seconds in that round. */
function roundRate(own: readonly Contender[], round: number): number {
  let requests = 0;
  let cpuSeconds = 0;
  for (const contender of own) {
    requests += contender.roundRequests[round]!;
    cpuSeconds += contender.roundCpuSeconds[round]!;
  }
  return requests / cpuSeconds;
}

/**
 * The ratio of `own` to `first` within each round (runs minutes apart drift, runs of one round
 * much less): their median and range.
 */
function roundRatios(own: readonly Contender[], first: readonly Contender[]): string {
  const ratios = own[0]!.roundRequests.map(
    (_, round) => roundRate(own, round) / roundRate(first, round),
  );
  const range = `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
  return `median of the rounds' ratios ${median(ratios).toFixed(2)}x, ${range}`;
}

const rounds = numberOption("rounds", 4);
const seconds = numberOption("seconds", 2);
const connections = numberOption("connections", 64);
const pipelineDepth = numberOption("pipeline", 1);
const processes = numberOption("processes", 1);
const warmSeconds = numberOption("warm-seconds", 1);
const warmPathIndex = Bun.argv.indexOf("--warm-path");
const warmPath = warmPathIndex < 0 ? undefined : Bun.argv[warmPathIndex + 1];
const serverArgs = serverArgsOption();
if (!wrkAvailable()) throw new Error("bench: wrk is not installed (apt-get install -y wrk)");
const pinning = choosePinning();
const ticks = clockTicksPerSecond();
const contenders: Contender[] = [];

/** One wrk run against `contender`; returns its requests and the server's CPU seconds. */
async function load(contender: Contender, durationSeconds: number, target = contender.target) {
  const pid = contender.server.pid;
  const before = readCpuSeconds(pid, ticks);
  const result = await runWrk({
    url: `http://127.0.0.1:${contender.server.port}${target}`,
    connections,
    durationSeconds,
    pipelineDepth,
    pinPrefix: pinning.load,
  });
  return { requests: result.requests, cpuSeconds: readCpuSeconds(pid, ticks) - before };
}

try {
  const specs = serverTargets(Bun.argv, [], 2);
  // By copy, then by server: the processes of one server are loaded apart in each round.
  for (let copy = 1; copy <= processes; copy++) {
    for (const [group, spec] of specs.entries()) {
      const server = await ServerProcess.start({
        script: spec.script,
        pinPrefix: pinning.server,
        cwd: process.cwd(),
        args: serverArgs,
      });
      const label = `${spec.script.replace(`${process.cwd()}/`, "")} ${spec.target}`;
      contenders.push({
        label,
        group,
        target: spec.target,
        server,
        requests: 0,
        cpuSeconds: 0,
        roundRequests: [],
        roundCpuSeconds: [],
      });
    }
  }
  console.log(
    `bench alternate: ${pinning.description}; ${rounds} rounds of ${seconds} s, ` +
      `${connections} connections${pipelineDepth > 1 ? `, ${pipelineDepth}-deep pipelined` : ""}` +
      `${processes > 1 ? `, ${processes} processes of each server` : ""}`,
  );
  for (const contender of contenders) await load(contender, warmSeconds, warmPath);
  for (let round = 1; round <= rounds; round++) {
    // Rotated each round: whichever process runs first in a round served about 6% more here
    // (two trees of the same speed read 0.94x either way round with a fixed order).
    for (const contender of rotate(contenders, round - 1)) {
      const { requests, cpuSeconds } = await load(contender, seconds);
      contender.requests += requests;
      contender.cpuSeconds += cpuSeconds;
      contender.roundRequests.push(requests);
      contender.roundCpuSeconds.push(cpuSeconds);
      const rate = Math.round(requests / cpuSeconds).toLocaleString("en-US");
      console.log(`  round ${round}  ${contender.label}: ${rate} req per CPU-second`);
    }
  }
  const perSecond = (rate: number) => Math.round(rate).toLocaleString("en-US");
  let firstRate = 0;
  const firstOwn = contenders.filter((contender) => contender.group === 0);
  for (const [group] of specs.entries()) {
    const own = contenders.filter((contender) => contender.group === group);
    const requests = own.reduce((total, contender) => total + contender.requests, 0);
    const cpuSeconds = own.reduce((total, contender) => total + contender.cpuSeconds, 0);
    const rate = requests / cpuSeconds;
    if (group === 0) firstRate = rate;
    const ratio =
      group === 0
        ? ""
        : `  (${(rate / firstRate).toFixed(2)}x the first; ${roundRatios(own, firstOwn)})`;
    const each =
      own.length === 1
        ? ""
        : `  [processes: ${own.map((contender) => perSecond(contender.requests / contender.cpuSeconds)).join(", ")}]`;
    console.log(`${own[0]!.label}: ${perSecond(rate)} req per server CPU-second${ratio}${each}`);
  }
} finally {
  await Promise.all(contenders.map((contender) => contender.server.stop()));
}
