// `bun bench/in-process-time.ts [--pipeline D] [--rounds R] [--requests N] [--browser-headers]
//   SERVER:TARGET...`
//
// Times the JavaScript side of a request without the kernel: each SERVER (a corral script of
// bench/servers) runs in a process of its own under bench/instruction-driver.ts, as for
// bench/instructions.ts but without valgrind, which feeds its socket handlers chunks of D
// requests (16 by default) from a fake socket, warms it with 96,000 requests, then times N more
// (480,000 by default) and reports nanoseconds a request. No socket, no event-loop wake-up and
// no load generator shares the measurement, so two runs of one tree differ by about 2-3%
// where wrk's requests per CPU-second move by 20-70% within minutes on this machine; and it
// counts what instruction counts miss (cache misses, the collector's threads, stalls): on 30
// November a minimal App route took 1.07x the time of the same route on the bare engine in this
// way while its instruction count was 1.6% higher. The servers take turns for R rounds (5), in an order
// rotated every round; each server's median is printed with its ratio of speed to the first's,
// and the median and range of the ratio within each round.
//
//   bun bench/in-process-time.ts bench/servers/corral-engine-hello-query.ts:/hello?name=x \
//     bench/servers/corral-app-hello.ts:/hello?name=x
//
// What it leaves out is the per-chunk cost of the real socket (the system calls and Bun's
// socket layer), the same for every corral server: a ratio here is larger than the same ratio
// measured with wrk, where that fixed cost is in both. Only servers that listen through
// `Bun.listen` can be driven (not Bun.serve, Hono or Elysia).
import { resolve } from "node:path";
import { driverEnvironment, driverResult } from "./driver-result.ts";
import { numberOption } from "./number-option.ts";
import { rotate } from "./rotate.ts";
import { serverTargets } from "./server-targets.ts";

const pipeline = numberOption("pipeline", 16);
const rounds = numberOption("rounds", 5);
const requests = numberOption("requests", 480_000);
const browserHeaders = Bun.argv.includes("--browser-headers");
const servers = serverTargets(Bun.argv, ["--browser-headers"], 1);
const driver = resolve(import.meta.dir, "instruction-driver.ts");

/** One run of `script`: nanoseconds a request over the timed turns. */
async function timeOnce(script: string, target: string): Promise<number> {
  const run = Bun.spawn([process.execPath, driver], {
    env: driverEnvironment({
      script,
      target,
      pipeline,
      warmTurns: Math.ceil(96_000 / pipeline),
      turns: Math.ceil(requests / pipeline),
      browserHeaders,
    }),
    stdout: "pipe",
    stderr: "pipe",
  });
  return (await driverResult(run, script, "in-process")).nanosecondsPerRequest;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const times: number[][] = servers.map(() => []);
console.log(`nanoseconds a request, in-process (${pipeline} pipelined, ${requests} timed)`);
for (let round = 0; round < rounds; round++) {
  for (const index of rotate(
    servers.map((_, at) => at),
    round,
  )) {
    const { script, target } = servers[index]!;
    const nanoseconds = await timeOnce(script, target);
    times[index]!.push(nanoseconds);
    console.log(`  round ${round + 1}  ${script} ${target}: ${nanoseconds} ns`);
  }
}
const first = median(times[0]!);
for (const [index, { script, target }] of servers.entries()) {
  const own = median(times[index]!);
  let line = `${script} ${target}: median ${own} ns [${times[index]!.join(", ")}]`;
  if (index > 0) {
    const ratios = times[index]!.map((nanoseconds, round) => times[0]![round]! / nanoseconds);
    const low = Math.min(...ratios).toFixed(2);
    const high = Math.max(...ratios).toFixed(2);
    line += `  (${(first / own).toFixed(2)}x the first's speed; rounds' median ${median(ratios).toFixed(2)}x, ${low}-${high})`;
  }
  console.log(line);
}
