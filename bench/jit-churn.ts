// How JavaScriptCore compiled a server's code under load: for each `SCRIPT:/target`, the server
// runs with JavaScriptCore's reports of its optimizing compilations (`BUN_JSC_report*CompileTimes`)
// and of every failed speculation (`BUN_JSC_printEachOSRExit`), wrk loads it, and the functions
// compiled most often and the places whose speculations failed most are listed.
//
// A function compiled by the optimizing tiers (DFG, then FTL) once or twice is the JIT warming up.
// One compiled again and again is paying for a speculation that keeps failing, and may be left in
// the middle tier: on 2026-11-30 the engine's `writeHead` was compiled 11 times in 6 s of
// TechEmpower's `/json` (a default parameter's type failing its check, 160 exits at one place)
// and ran as DFG code from then on; and a path hash past 2^31 (a double) made the scheduler's
// `#assign` fail 101 type checks a run. Both were found with this and are fixed.
//
//   bun bench/jit-churn.ts [--seconds 6] [--connections 64] [--pipeline 1] [--rows 12]
//     [--wrk-script mix.lua] [--server-args "A B"] SCRIPT:/target...
//
// `--wrk-script` makes the requests with a wrk Lua script (a mix of routes, headers, bodies),
// sent to each server's `/target` as its base.
import { resolve } from "node:path";
import { numberOption } from "./number-option.ts";
import { ServerProcess } from "./server-process.ts";
import { serverArgsOption, serverTargets } from "./server-targets.ts";
import { runWrk, wrkAvailable } from "./wrk.ts";

const seconds = numberOption("seconds", 6);
const connections = numberOption("connections", 64);
const pipelineDepth = numberOption("pipeline", 1);
const rows = numberOption("rows", 12);
const scriptAt = Bun.argv.indexOf("--wrk-script");
const wrkScript = scriptAt < 0 ? undefined : resolve(Bun.argv[scriptAt + 1] ?? "");
if (!wrkAvailable()) throw new Error("bench: wrk is missing (apt-get install -y wrk)");

/** A line of JavaScriptCore's compile report: `Optimized NAME:[...] using FTL with ...`. */
const compiled = /^Optimized ([^:]+):.* using (DFG|FTL) with/;
/** A failed speculation: `Speculation failure in NAME:[...] @ exit #N (bc#X, Kind) with ...`. */
const exited = /^Speculation failure in ([^:]+):.*@ exit #\d+ \((bc#\d+)[^,]*, (\w+)\)/;

/** Counts of `key` in `counts`, largest first, the first `limit`. */
function largest(counts: Map<string, number>, limit: number): [string, number][] {
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, limit);
}

/** JavaScriptCore's options for the reports, read by the server at its start. */
const reports = {
  BUN_JSC_reportDFGCompileTimes: "1",
  BUN_JSC_reportFTLCompileTimes: "1",
  BUN_JSC_printEachOSRExit: "1",
};

for (const { script, target } of serverTargets(Bun.argv, [], 1)) {
  const server = await ServerProcess.start({
    script,
    pinPrefix: [],
    cwd: process.cwd(),
    args: serverArgsOption(),
    env: reports,
  });
  let result: Awaited<ReturnType<typeof runWrk>>;
  try {
    result = await runWrk({
      url: `http://127.0.0.1:${server.port}${target}`,
      connections,
      durationSeconds: seconds,
      pipelineDepth,
      pinPrefix: [],
      ...(wrkScript === undefined ? {} : { script: wrkScript }),
    });
  } finally {
    await server.stop();
  }
  const compiles = new Map<string, number>();
  const lastTier = new Map<string, string>();
  const exits = new Map<string, number>();
  for (const line of server.stderrText.split("\n")) {
    const compile = compiled.exec(line);
    if (compile !== null) {
      const [, name, tier] = compile as unknown as [string, string, string];
      compiles.set(name, (compiles.get(name) ?? 0) + 1);
      lastTier.set(name, tier);
      continue;
    }
    const exit = exited.exec(line);
    if (exit !== null) {
      const [, name, place, kind] = exit as unknown as [string, string, string, string];
      const key = `${name} ${place} ${kind}`;
      exits.set(key, (exits.get(key) ?? 0) + 1);
    }
  }
  const label = `${script.split("/").slice(-1)[0]}:${target}`;
  console.log(
    `${label}: ${Math.round(result.requestsPerSecond).toLocaleString("en-US")} req/s, ` +
      `${seconds} s, ${connections} connections, ${pipelineDepth} pipelined`,
  );
  console.log("  compiled by DFG and FTL (times, last tier):");
  for (const [name, times] of largest(compiles, rows)) {
    if (times < 3) break;
    console.log(`    ${String(times).padStart(4)}  ${lastTier.get(name)}  ${name}`);
  }
  console.log("  failed speculations (exits, function, bytecode, kind):");
  for (const [site, times] of largest(exits, rows)) {
    console.log(`    ${String(times).padStart(4)}  ${site}`);
  }
}
