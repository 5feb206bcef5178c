// `bun bench/websocket-instructions.ts [--payload B] [--messages N] [--warm W] [--functions N]
//   KIND...`
//
// Counts the user-space instructions one echoed WebSocket message costs a server of
// bench/websocket-server.ts (KIND: corral, bun, ws or floor), with valgrind's callgrind, the way
// bench/socket-instructions.ts counts an HTTP request: the server runs under callgrind, 64 lean
// clients (bench/websocket-clients.ts, in this process, not counted) echo W binary messages of B
// bytes (64 by default) so the JIT has compiled the path, then the count is switched on for 2,048
// messages in one process and 2,048 + N (16,384) in another: the difference over N is one
// message's cost. The kernel's part (one `recvfrom` and one `sendto` a message for every server,
// `strace -c`) is not counted. With `--functions N` the N JIT-compiled functions that cost a
// message most are listed (JITDump names, bench/jit-functions.ts; callees the JIT inlined count
// in their caller). Timed rows move with the machine; this count does not.
//
//   bun bench/websocket-instructions.ts corral floor bun
//
// Needs valgrind (Debian's `valgrind`). Traffic goes to 127.0.0.1 only.
import { mkdirSync, rmSync } from "node:fs";
import {
  annotateAndRemove,
  callgrindEnvironment,
  requireValgrind,
  switchCounting,
  underCallgrind,
} from "./callgrind-control.ts";
import { type InstructionSplit, splitCounts } from "./callgrind-split.ts";
import { instructionsByFunction, readJitDumps } from "./jit-functions.ts";
import { LineCollector } from "./line-collector.ts";
import { numberOption } from "./number-option.ts";
import { openManyLean, serverFrameBytes, zeroMaskedFrame } from "./websocket-clients.ts";

const payloadBytes = numberOption("payload", 64);
const countedMessages = numberOption("messages", 16_384);
const warmMessages = numberOption("warm", 60_000);
const functionRows = Bun.argv.includes("--functions") ? numberOption("functions", 30) : 0;
const clientCount = 64;
/** Messages counted in the shorter of the two runs. */
const baseMessages = 2_048;
/** A server under valgrind starts many times slower than alone. */
const startTimeoutMs = 120_000;
const kinds = new Set(["corral", "bun", "ws", "floor"]);

interface Count extends InstructionSplit {
  readonly messages: number;
  readonly functions: Map<string, number>;
}

/** Each of 64 clients echoes its share of `total` messages, one in flight at a time. */
async function echo(port: number, total: number): Promise<number> {
  const clients = await openManyLean(port, "/echo", clientCount);
  const frame = zeroMaskedFrame(2, payloadBytes);
  const reply = serverFrameBytes(payloadBytes);
  const each = Math.ceil(total / clients.length);
  await Promise.all(
    clients.map(
      (client) =>
        new Promise<void>((resolve) => {
          let sent = 1;
          client.onBytes = (received) => {
            if (received < sent * reply) return;
            if (sent === each) {
              resolve();
              return;
            }
            sent++;
            client.socket.write(frame);
          };
          client.socket.write(frame);
        }),
    ),
  );
  for (const client of clients) client.socket.end();
  return each * clients.length;
}

async function count(kind: string, messages: number): Promise<Count> {
  const output = `/tmp/corral-websocket-callgrind.${process.pid}.${messages}.out`;
  const dumps = `/tmp/corral-websocket-jitdump.${process.pid}.${messages}`;
  if (functionRows > 0) mkdirSync(dumps, { recursive: true });
  const naming: Record<string, string> =
    functionRows > 0 ? { BUN_JSC_useJITDump: "true", BUN_JSC_jitDumpDirectory: dumps } : {};
  const server = Bun.spawn(
    underCallgrind(output, [process.execPath, `${import.meta.dir}/websocket-server.ts`, kind]),
    { env: callgrindEnvironment(naming), stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  const lines = new LineCollector(server.stdout);
  const errors = new LineCollector(server.stderr);
  let echoed = 0;
  try {
    const ready = await lines.waitFor("listening ", startTimeoutMs);
    if (ready === undefined) {
      throw new Error(`bench: ${kind} did not start:\n${errors.lines.slice(-20).join("\n")}`);
    }
    const port = Number(ready);
    await echo(port, warmMessages);
    await switchCounting(server.pid, "on");
    echoed = await echo(port, messages);
    await switchCounting(server.pid, "off");
    // The JITDump file is written as code is compiled; give it a moment to reach the disk.
    if (functionRows > 0) await Bun.sleep(500);
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
  const text = annotateAndRemove(output);
  const functions =
    functionRows > 0 ? instructionsByFunction(text, readJitDumps(dumps)) : new Map();
  rmSync(dumps, { recursive: true, force: true });
  return { ...splitCounts(text), messages: echoed, functions };
}

const requested = Bun.argv.slice(2).filter((argument) => kinds.has(argument));
if (requested.length === 0) {
  throw new Error("usage: bun bench/websocket-instructions.ts [options] corral|bun|ws|floor...");
}
requireValgrind();
console.log(
  `user-space instructions per echoed ${payloadBytes}-byte message (${clientCount} clients, counted ${baseMessages} and ${baseMessages + countedMessages} after ${warmMessages})`,
);
console.log("server       total     JIT    Bun  other");
for (const kind of requested) {
  const [low, high] = await Promise.all([
    count(kind, baseMessages),
    count(kind, baseMessages + countedMessages),
  ]);
  const messages = high.messages - low.messages;
  const per = (key: keyof InstructionSplit) => Math.round((high[key] - low[key]) / messages);
  const total = per("total");
  const other = total - per("jit") - per("bun");
  console.log(
    `${kind.padEnd(8)} ${String(total).padStart(8)} ${String(per("jit")).padStart(7)} ${String(per("bun")).padStart(6)} ${String(other).padStart(6)}`,
  );
  if (functionRows === 0) continue;
  const rows = [...high.functions]
    .map(
      ([name, instructions]) =>
        [name, (instructions - (low.functions.get(name) ?? 0)) / messages] as const,
    )
    .sort((a, b) => b[1] - a[1])
    .slice(0, functionRows);
  for (const [name, instructions] of rows) {
    console.log(`  ${instructions.toFixed(1).padStart(9)}  ${name}`);
  }
}
