// `bun bench/socket-instructions.ts [--requests N] [--warm W] [--connections C]
//   [--server-args "A B"] SERVER:TARGET...`
//
// Counts the user-space instructions one request costs any bench server, corral or not, over
// real sockets: each SERVER (a script of bench/servers) runs in its own process under valgrind's
// callgrind, is warmed with W requests (60,000) so the JIT has compiled its path, then counted
// while it answers N more (16,384) from C connections with one request in flight each (64), as
// wrk sends them. Two processes per server, counting 2,048 and 2,048 + N requests: the difference
// over N is one request's cost, the fixed costs of starting and of switching the count on and
// off cancelling out. The load comes from this process (bench/socket-load.ts), not counted.
//
// What bench/instructions.ts cannot do: Bun.serve, Hono and Elysia do not listen through
// `Bun.listen`, so only this way can their cost be counted beside corral's, with Bun's socket
// layer and event loop included. What it leaves out is the kernel's part (the system calls, the
// loopback's delivery), which callgrind does not see and which is the same for every server that
// reads and writes once a request (`strace`: one `recvfrom` and one `sendto` a request for corral
// and Bun.serve alike). The count moves with where collections fall, by a few hundred
// instructions between runs; wrk's requests per CPU-second move by 20-70% within minutes here.
//
//   bun bench/socket-instructions.ts bench/servers/corral-app-hello.ts:/hello?name=world \
//     bench/servers/bun-serve-hello-query.ts:/hello?name=world
//
// `--server-args` are given to every server: `--server-args "--db postgres://..."` counts the
// TechEmpower servers on PostgreSQL (with `--connections 8`: at 64, queries under valgrind wait
// past the pool's bound and are answered 503, which stops the count).
//
// Needs valgrind (Debian's `valgrind`). Traffic goes to 127.0.0.1 only.
import {
  annotateAndRemove,
  callgrindEnvironment,
  requireValgrind,
  switchCounting,
  underCallgrind,
} from "./callgrind-control.ts";
import { type InstructionSplit, splitCounts } from "./callgrind-split.ts";
import { LineCollector } from "./line-collector.ts";
import { numberOption } from "./number-option.ts";
import { serverArgsOption, serverTargets } from "./server-targets.ts";
import { socketLoad } from "./socket-load.ts";

const requests = numberOption("requests", 16_384);
const warmRequests = numberOption("warm", 60_000);
const connections = numberOption("connections", 64);
/** Requests counted in the shorter of the two runs. */
const baseRequests = 2_048;
const serverArgs = serverArgsOption();
/** A server under valgrind starts many times slower than alone. */
const startTimeoutMs = 120_000;

requireValgrind();

/** One server process under callgrind answering `counted` requests after the warm-up. */
async function count(script: string, target: string, counted: number): Promise<InstructionSplit> {
  const output = `/tmp/corral-socket-callgrind.${process.pid}.${counted}.out`;
  const command = [process.execPath, script, "--port", "0", ...serverArgs];
  const server = Bun.spawn(underCallgrind(output, command), {
    env: callgrindEnvironment(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines = new LineCollector(server.stdout);
  const errors = new LineCollector(server.stderr);
  try {
    const ready = await lines.waitFor("READY ", startTimeoutMs);
    if (ready === undefined) {
      throw new Error(`bench: ${script} did not start:\n${errors.lines.slice(-20).join("\n")}`);
    }
    const port = Number(ready);
    await socketLoad(port, target, warmRequests, connections);
    await switchCounting(server.pid, "on");
    await socketLoad(port, target, counted, connections);
    await switchCounting(server.pid, "off");
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
  return splitCounts(annotateAndRemove(output));
}

console.log(
  `user-space instructions per request over real sockets (${connections} connections, counted ${baseRequests} and ${baseRequests + requests} requests after ${warmRequests})`,
);
console.log("server:target                                         total     JIT    Bun  other");
let first: number | undefined;
for (const { script, target } of serverTargets(Bun.argv, [], 1)) {
  const [low, high] = await Promise.all([
    count(script, target, baseRequests),
    count(script, target, baseRequests + requests),
  ]);
  const per = (key: keyof InstructionSplit) => Math.round((high[key] - low[key]) / requests);
  const total = per("total");
  const other = total - per("jit") - per("bun");
  first ??= total;
  const label = `${script.split("/").slice(-1)[0]}:${target}`.padEnd(50);
  const ratio = (total / first).toFixed(2);
  console.log(
    `${label} ${String(total).padStart(8)} ${String(per("jit")).padStart(7)} ${String(per("bun")).padStart(6)} ${String(other).padStart(6)}  ${ratio}x the first`,
  );
}
