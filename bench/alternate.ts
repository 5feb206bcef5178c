// `bun bench/alternate.ts [--rounds N] [--seconds S] [--connections C] [--pipeline D]
//   [--server-args "A B"] [--warm-seconds S] [--warm-path P] SERVER:PATH...`
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
import { choosePinning } from "./pinning.ts";
import { clockTicksPerSecond, readCpuSeconds } from "./process-metrics.ts";
import { ServerProcess } from "./server-process.ts";
import { serverTargets } from "./server-targets.ts";
import { runWrk, wrkAvailable } from "./wrk.ts";

interface Contender {
  readonly label: string;
  readonly target: string;
  readonly server: ServerProcess;
  requests: number;
  cpuSeconds: number;
}

/** The value after `--name`, as a positive number, or `fallback`. */
function numberOption(name: string, fallback: number): number {
  const index = Bun.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number(Bun.argv[index + 1]);
  if (!(value > 0)) throw new Error(`bench: --${name} needs a positive number`);
  return value;
}

const rounds = numberOption("rounds", 4);
const seconds = numberOption("seconds", 2);
const connections = numberOption("connections", 64);
const pipelineDepth = numberOption("pipeline", 1);
const warmSeconds = numberOption("warm-seconds", 1);
const warmPathIndex = Bun.argv.indexOf("--warm-path");
const warmPath = warmPathIndex < 0 ? undefined : Bun.argv[warmPathIndex + 1];
const serverArgsIndex = Bun.argv.indexOf("--server-args");
const serverArgs = serverArgsIndex < 0 ? [] : (Bun.argv[serverArgsIndex + 1] ?? "").split(" ");
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
  for (const spec of serverTargets(Bun.argv, [], 2)) {
    const server = await ServerProcess.start({
      script: spec.script,
      pinPrefix: pinning.server,
      cwd: process.cwd(),
      args: serverArgs,
    });
    const label = `${spec.script.replace(`${process.cwd()}/`, "")} ${spec.target}`;
    contenders.push({ label, target: spec.target, server, requests: 0, cpuSeconds: 0 });
  }
  console.log(
    `bench alternate: ${pinning.description}; ${rounds} rounds of ${seconds} s, ` +
      `${connections} connections${pipelineDepth > 1 ? `, ${pipelineDepth}-deep pipelined` : ""}`,
  );
  for (const contender of contenders) await load(contender, warmSeconds, warmPath);
  for (let round = 1; round <= rounds; round++) {
    for (const contender of contenders) {
      const { requests, cpuSeconds } = await load(contender, seconds);
      contender.requests += requests;
      contender.cpuSeconds += cpuSeconds;
      const rate = Math.round(requests / cpuSeconds).toLocaleString("en-US");
      console.log(`  round ${round}  ${contender.label}: ${rate} req per CPU-second`);
    }
  }
  const first = contenders[0]!;
  const firstRate = first.requests / first.cpuSeconds;
  for (const contender of contenders) {
    const rate = contender.requests / contender.cpuSeconds;
    const ratio = contender === first ? "" : `  (${(rate / firstRate).toFixed(2)}x the first)`;
    console.log(
      `${contender.label}: ${Math.round(rate).toLocaleString("en-US")} req per server CPU-second${ratio}`,
    );
  }
} finally {
  await Promise.all(contenders.map((contender) => contender.server.stop()));
}
