// `bun bench/instructions.ts [--pipeline D] [--turns A,B] [--warm-turns W] [--browser-headers]
//   [--functions N] SERVER:TARGET...`
//
// Counts the machine instructions one request costs a corral server, with valgrind's callgrind:
// an exact count, the same on every run whatever else the machine does, where a timed load
// moves by 20-70% within minutes on this machine. Each SERVER (a corral script of bench/servers)
// runs in-process under bench/instruction-driver.ts, which feeds its socket handlers chunks of
// PIPELINE requests (16 by default) without a kernel socket, warms it with W chunks (96,000
// requests' worth: 6000 at 16 pipelined; at 1, 6000 left some of the path a tier below) so the
// JIT has compiled the request path, and counts A and then B further chunks (by default 64, and
// 64 plus 16,384 requests' worth: 1088 at 16 pipelined, 16,448 at 1) in two runs: the difference
// over (B - A) x PIPELINE requests is the cost of one request, the fixed costs of starting and of
// switching the count on and off cancelling out. A request carries only Host, as wrk's do; with
// `--browser-headers` it carries the fields a browser sends for a page (about 600 bytes of head).
//
// The count is split into JIT-compiled JavaScript (code valgrind finds in no file), Bun's own
// code (the runtime, the collector, the interpreter) and the rest (libc, the kernel interface).
// The JIT part repeats within about 0.5%. The default turns count 16,384 requests between the
// two runs, whole periods of the engine's young collections (one every 16,384 requests, or every
// 4,096 chunks of one small request), so each difference holds as many of them; with other turns
// a collection can fall in one run only and move Bun's part by thousands. Collections
// JavaScriptCore starts on its own from an allocation still fall where they fall (valgrind runs
// the process many times slower): one request at a time, Bun's part of the App hello read 6,138
// over 1,024 requests (the default until 2026-11-27), 4,638 over 16,384 and 3,021 over 32,768,
// the bare engine's 3,505, 4,716 and 3,647. Compare the JIT part, or count 16 pipelined. Use it
// to compare two versions of the code (a worktree of the old commit, as for bench/alternate.ts)
// or two servers on one request:
//
//   bun bench/instructions.ts bench/servers/corral-app-hello.ts:/hello?name=corral \
//     bench/servers/corral-engine-hello-query.ts:/hello?name=corral
//
// `--functions N` also names the JIT-compiled code (bench/jit-functions.ts, from JavaScriptCore's
// JITDump) and lists the N functions that cost a request most, callees the JIT inlined counted in
// their caller: where to look, and what a change moved.
//
// Needs valgrind (Debian's `valgrind`). Bun.serve, Hono and Elysia do not listen through
// `Bun.listen`, so they cannot be driven this way; the comparison with them stays bench/run.ts's
// (timed) and bench/socket-instructions.ts's (counted over real sockets).
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { type InstructionSplit, splitCounts } from "./callgrind-split.ts";
import { driverEnvironment, driverResult } from "./driver-result.ts";
import { instructionsByFunction, readJitDumps, unnamed } from "./jit-functions.ts";
import { serverTargets } from "./server-targets.ts";

interface Split extends InstructionSplit {
  /** JIT-compiled instructions by function (with `--functions`). */
  readonly functions: Map<string, number>;
}

function option(name: string, fallback: string): string {
  const index = Bun.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : (Bun.argv[index + 1] ?? fallback);
}

const pipeline = Number(option("pipeline", "16"));
/**
 * Requests between the two counts by default: whole periods of the engine's young collections
 * (one every 16,384 requests, or every 4,096 chunks of one small request), at any depth.
 */
const countedRequests = 16_384;
const defaultTurns = `64,${64 + Math.ceil(countedRequests / pipeline)}`;
const [turnsA, turnsB] = option("turns", defaultTurns).split(",").map(Number) as [number, number];
const warmTurns = Number(option("warm-turns", String(Math.ceil(96_000 / pipeline))));
if (!(pipeline >= 1 && turnsA >= 1 && turnsB > turnsA && warmTurns >= 0)) {
  throw new Error("bench: --pipeline >= 1, --turns A,B with 0 < A < B, --warm-turns >= 0");
}
if (Bun.which("valgrind") === null)
  throw new Error("bench: valgrind is missing (apt-get install valgrind)");
const driver = resolve(import.meta.dir, "instruction-driver.ts");
/** With `--functions N`: the N functions whose JIT-compiled code costs a request most. */
const functionRows = Bun.argv.includes("--functions") ? Number(option("functions", "30")) : 0;
if (!(functionRows >= 0)) throw new Error("bench: --functions takes a number of rows");

/** One valgrind run counting `turns` chunks: its instructions by kind. */
async function count(script: string, target: string, turns: number): Promise<Split> {
  const output = `/tmp/corral-callgrind.${process.pid}.${turns}.out`;
  const dumps = `/tmp/corral-jitdump.${process.pid}.${turns}`;
  if (functionRows > 0) mkdirSync(dumps, { recursive: true });
  const naming =
    functionRows > 0
      ? { BUN_JSC_useJITDump: "true", BUN_JSC_jitDumpDirectory: dumps, FLUSH_JIT_DUMP: "1" }
      : {};
  const run = Bun.spawn(
    ["valgrind", "--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${output}`].concat(
      [process.execPath, driver],
    ),
    {
      env: {
        ...driverEnvironment({
          script,
          target,
          pipeline,
          warmTurns,
          turns,
          browserHeaders: Bun.argv.includes("--browser-headers"),
        }),
        // Compiled on the main thread, so the compilations are done when counting starts.
        BUN_JSC_useConcurrentJIT: "false",
        ...naming,
      },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const { requests, writes } = await driverResult(run, script, "under valgrind");
  if (requests !== turns * pipeline || writes === 0) {
    throw new Error(`bench: ${script} answered nothing under valgrind`);
  }
  const annotate = Bun.spawnSync(["callgrind_annotate", "--threshold=100", output]);
  await Bun.file(output).delete();
  const annotated = annotate.stdout.toString();
  let functions = new Map<string, number>();
  if (functionRows > 0) {
    functions = instructionsByFunction(annotated, readJitDumps(dumps));
    rmSync(dumps, { recursive: true, force: true });
  }
  return { ...splitCounts(annotated), functions };
}

console.log(
  `instructions per request (${pipeline} pipelined, counted ${turnsA} and ${turnsB} chunks after ${warmTurns})`,
);
console.log("server:target                                         total     JIT    Bun  other");
for (const { script, target } of serverTargets(Bun.argv, ["--browser-headers"], 1)) {
  const [low, high] = await Promise.all([
    count(script, target, turnsA),
    count(script, target, turnsB),
  ]);
  const requests = (turnsB - turnsA) * pipeline;
  const per = (key: "total" | "jit" | "bun") => Math.round((high[key] - low[key]) / requests);
  const other = per("total") - per("jit") - per("bun");
  const label = `${script.split("/").slice(-1)[0]}:${target}`.padEnd(50);
  console.log(
    `${label} ${String(per("total")).padStart(8)} ${String(per("jit")).padStart(7)} ${String(per("bun")).padStart(6)} ${String(other).padStart(6)}`,
  );
  if (functionRows > 0) printFunctions(low.functions, high.functions, requests);
}

/**
 * The JIT-compiled functions by their cost per request (callees the JIT inlined count in their
 * caller), and a warning when some code had no JITDump record in either run.
 */
function printFunctions(low: Map<string, number>, high: Map<string, number>, requests: number) {
  const names = new Set([...low.keys(), ...high.keys()]);
  const rows = [...names]
    .map((name) => ({ name, cost: ((high.get(name) ?? 0) - (low.get(name) ?? 0)) / requests }))
    .filter((row) => row.name !== unnamed)
    .sort((a, b) => b.cost - a.cost)
    .slice(0, functionRows);
  for (const row of rows) console.log(`  ${row.cost.toFixed(1).padStart(8)}  ${row.name}`);
  const missing = Math.max(low.get(unnamed) ?? 0, high.get(unnamed) ?? 0);
  const total = Math.max(sum(low), sum(high));
  if (missing > total * 0.02) {
    console.log(
      `  (${Math.round((100 * missing) / total)}% of a run's JIT code had no JITDump record: the names are unreliable, run again)`,
    );
  }
}

function sum(counts: Map<string, number>): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}
