// `bun bench/perf-functions.ts [--pipeline 16] [--requests 4800000] [--rows 40] SERVER:TARGET`
//
// Where a corral server's time goes, by function: the server runs in-process under the driver
// of bench/instructions.ts (no socket, no valgrind) while Linux `perf record -e cpu-clock`
// samples it 10,000 times a second, and JavaScriptCore writes a JITDump so that each sample in
// JIT-compiled code is named by its function (bench/jit-functions.ts). Prints each function's
// share as nanoseconds a request, per thread (`bun` is the JavaScript thread; `JITWorker` and
// `HeapHelper` are the compiler's and the collector's). Where bench/instructions.ts counts what a
// function executes, this shows what it costs in time, stalls and cache misses included; the
// sampling adds no code to the process. Samples in Bun's own code show as its executable (it has
// no symbols). On 30 November it showed the App hello's route lookup at about 21 ns a request
// and its query read, before `queryValueRaw`, as the largest cost the App added to the engine's.
// The samples cover the whole run: start, the warm-up (96,000 requests, 2% of the default) and
// the JIT's compilations, spread over every request answered. Needs Debian's `linux-perf` (`perf`), allowed
// to sample its own children (kernel.perf_event_paranoid 2 allows it).
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { driverEnvironment, driverResult } from "./driver-result.ts";
import { readJitDumps } from "./jit-functions.ts";
import { numberOption } from "./number-option.ts";
import { serverTargets } from "./server-targets.ts";

const pipeline = numberOption("pipeline", 16);
const requests = numberOption("requests", 4_800_000);
const rows = numberOption("rows", 40);
const frequency = 10_000;
const [{ script, target }] = serverTargets(Bun.argv, [], 1) as [{ script: string; target: string }];
if (Bun.which("perf") === null)
  throw new Error("bench: perf is missing (apt-get install linux-perf)");

const work = `/tmp/corral-perf.${process.pid}`;
const dumps = `${work}/jitdump`;
const data = `${work}/perf.data`;
mkdirSync(dumps, { recursive: true });
try {
  const warmTurns = Math.ceil(96_000 / pipeline);
  const turns = Math.ceil(requests / pipeline);
  const run = Bun.spawn(
    ["perf", "record", "-k", "1", "-e", "cpu-clock", "-F", String(frequency), "-o", data].concat(
      process.execPath,
      resolve(import.meta.dir, "instruction-driver.ts"),
    ),
    {
      env: {
        ...driverEnvironment({ script, target, pipeline, warmTurns, turns }),
        BUN_JSC_useJITDump: "true",
        BUN_JSC_jitDumpDirectory: dumps,
        FLUSH_JIT_DUMP: "1",
      },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const result = await driverResult(run, script, "under perf");
  const answered = (warmTurns + turns) * pipeline;
  const loads = readJitDumps(dumps);
  const samples = Bun.spawnSync(["perf", "script", "-i", data, "-F", "comm,ip,sym,dso"], {
    stderr: "ignore",
  }).stdout.toString();
  const byFunction = new Map<string, number>();
  for (const line of samples.split("\n")) {
    const match = /^\s*(.+?)\s+([0-9a-f]+)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const address = BigInt(`0x${match[2]}`);
    let name = match[3]!.replace(/\+0x[0-9a-f]+/, "").trim();
    // perf has no symbol for compiled JavaScript (nor for Bun's stripped executable): the
    // JITDump's newest record covering the address names it.
    if (name.startsWith("[unknown]")) {
      for (let index = loads.length - 1; index >= 0; index--) {
        const code = loads[index]!;
        if (address >= code.start && address < code.end) {
          name = code.name;
          break;
        }
      }
    }
    const key = `${match[1]!.trim().slice(0, 12).padEnd(12)} ${name}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + 1);
  }
  const perRequest = (count: number) => ((count / frequency) * 1e9) / answered;
  console.log(
    `${script} ${target}: ${result.nanosecondsPerRequest} ns a request timed (${pipeline} pipelined); ` +
      "by function, ns a request over the whole run, warm-up included:",
  );
  const sorted = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, rows);
  for (const [key, count] of sorted)
    console.log(`${perRequest(count).toFixed(1).padStart(8)}  ${key}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
