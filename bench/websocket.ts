// `bun bench/websocket.ts [--seconds N] [--repeat N]`: corral's WebSockets against Bun.serve's websocket and
// `ws` on Bun, each server alone in its process on core 0, this lean raw-socket generator on
// core 1. Rows: echo messages per server CPU-second (64 B and 16 KiB, 64 clients, one message
// in flight each), a 64-member room where every member sends (N x N, deliveries per server
// CPU-second), one publish to 10,000 members (time until the last has it), and RSS per idle
// connection (2,000 idle sockets), and a side client's echo time behind 4 clients that flood
// empty messages. A fourth server, the `Bun.listen` floor (websocket-floor.ts),
// shows what corral's transport allows at best. See bench/README.md.
import { choosePinning } from "./pinning.ts";
import { clockTicksPerSecond, readCpuSeconds, readRss } from "./process-metrics.ts";
import {
  type LeanClient,
  openLean,
  openManyLean,
  serverFrameBytes,
  zeroMaskedFrame,
} from "./websocket-clients.ts";

const secondsIndex = Bun.argv.indexOf("--seconds");
const seconds = secondsIndex > 0 ? Number(Bun.argv[secondsIndex + 1]) : 5;
const repeatIndex = Bun.argv.indexOf("--repeat");
const repeats = repeatIndex > 0 ? Number(Bun.argv[repeatIndex + 1]) : 3;
const pinning = choosePinning();
const ticks = clockTicksPerSecond();
const kinds = ["bun", "ws", "corral", "floor"] as const;
/**
 * Load before the measured window of each load row: without it, the first second (the JIT still
 * compiling the server's path) counted toward the figure, and more for servers whose path is
 * JavaScript than for Bun's, whose is native.
 */
const warmUpMs = 1000;
type Kind = (typeof kinds)[number];

async function startServer(kind: Kind) {
  const child = Bun.spawn(
    [...pinning.server, "bun", `${import.meta.dir}/websocket-server.ts`, kind],
    {
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  const reader = child.stdout.getReader();
  let output = "";
  while (!/listening (\d+)/.test(output)) {
    const read = await reader.read();
    if (read.done) throw new Error(`${kind} server did not start: ${output}`);
    output += new TextDecoder().decode(read.value);
  }
  reader.releaseLock();
  return { child, port: Number(/listening (\d+)/.exec(output)![1]) };
}

/** Closed-loop echo: each client keeps one message in flight for `seconds`. */
async function echo(pid: number, port: number, payloadBytes: number, clientCount: number) {
  const clients = await openManyLean(port, "/echo", clientCount);
  const frame = zeroMaskedFrame(2, payloadBytes);
  const reply = serverFrameBytes(payloadBytes);
  let messages = 0;
  let running = true;
  for (const client of clients) {
    let sent = 1;
    client.onBytes = (received) => {
      if (received < sent * reply) return;
      messages++;
      if (!running) return;
      sent++;
      client.socket.write(frame);
    };
  }
  for (const client of clients) client.socket.write(frame);
  await Bun.sleep(warmUpMs);
  const messagesBefore = messages;
  const cpuBefore = readCpuSeconds(pid, ticks);
  await Bun.sleep(seconds * 1000);
  const counted = messages - messagesBefore;
  const cpu = readCpuSeconds(pid, ticks) - cpuBefore;
  running = false;
  close(clients);
  return { messages: counted, cpu, perCpuSecond: counted / cpu };
}

/** N x N: every member sends one 64-byte message a round; a round ends when all got all. */
async function everyoneSends(pid: number, port: number, members: number) {
  const clients = await openManyLean(port, "/room", members);
  const frame = zeroMaskedFrame(1, 64);
  const perRound = members * serverFrameBytes(64);
  let rounds = 0;
  let running = true;
  let done = 0;
  const startRound = () => {
    done = 0;
    for (const client of clients) client.socket.write(frame);
  };
  for (const client of clients) {
    client.onBytes = (received) => {
      if (received < (rounds + 1) * perRound) return;
      if (++done < members) return;
      rounds++;
      if (running) startRound();
    };
  }
  startRound();
  await Bun.sleep(warmUpMs);
  const roundsBefore = rounds;
  const cpuBefore = readCpuSeconds(pid, ticks);
  await Bun.sleep(seconds * 1000);
  const counted = rounds - roundsBefore;
  const cpu = readCpuSeconds(pid, ticks) - cpuBefore;
  running = false;
  close(clients);
  const deliveries = counted * members * members;
  return { deliveries, cpu, perCpuSecond: deliveries / cpu };
}

/** One publish to `members`: milliseconds until the last member has it (median of 5). */
async function fanOut(port: number, members: number) {
  const clients = await openManyLean(port, "/room", members);
  await Bun.sleep(500);
  const frame = zeroMaskedFrame(1, 64);
  const each = serverFrameBytes(64);
  const times: number[] = [];
  for (let round = 1; round <= 5; round++) {
    let remaining = members;
    const started = performance.now();
    const finished = new Promise<void>((resolve) => {
      for (const client of clients) {
        client.onBytes = (received) => {
          if (received < round * each) return;
          client.onBytes = null;
          if (--remaining === 0) resolve();
        };
      }
    });
    clients[0]!.socket.write(frame);
    await Promise.race([finished, Bun.sleep(10_000)]);
    times.push(remaining === 0 ? performance.now() - started : Number.NaN);
  }
  close(clients);
  return times.sort((a, b) => a - b)[2]!;
}

/**
 * `flooders` clients send empty text messages without pause (80,000 frames a write, written
 * again whenever their socket takes more) and read their echoes, while a side client sends one
 * 64-byte message at a time, 10 ms apart: milliseconds until each comes back, p99 over `seconds`
 * (a side message still unanswered when the row ends counts as its wait so far).
 */
async function flood(port: number, flooders: number) {
  const empty = zeroMaskedFrame(1, 0);
  const chunk = new Uint8Array(empty.length * 80_000);
  for (let index = 0; index < 80_000; index++) chunk.set(empty, index * empty.length);
  const hostiles = await openManyLean(port, "/echo", flooders);
  const side = await openLean(port, "/echo");
  const pending = hostiles.map(() => chunk.subarray(0, 0));
  const pump = setInterval(() => {
    for (const [index, hostile] of hostiles.entries()) {
      for (let writes = 0; writes < 4; writes++) {
        const data = pending[index]!.length > 0 ? pending[index]! : chunk;
        const written = hostile.socket.write(data);
        pending[index] = data.subarray(Math.max(written, 0));
        if (pending[index]!.length > 0) break;
      }
    }
  }, 1);
  await Bun.sleep(warmUpMs);
  const frame = zeroMaskedFrame(2, 64);
  const each = serverFrameBytes(64);
  const waits: number[] = [];
  const end = performance.now() + seconds * 1000;
  for (let sent = 1; performance.now() < end; sent++) {
    const started = performance.now();
    const answered = new Promise<void>((resolve) => {
      side.onBytes = (received) => {
        if (received >= sent * each) resolve();
      };
    });
    side.socket.write(frame);
    await Promise.race([answered, Bun.sleep(Math.max(end - started, 0))]);
    waits.push(performance.now() - started);
    await Bun.sleep(10);
  }
  clearInterval(pump);
  close([...hostiles, side]);
  waits.sort((a, b) => a - b);
  return waits[Math.min(waits.length - 1, Math.floor(waits.length * 0.99))]!;
}

/** Asks the server for a full collection (SIGUSR2, see websocket-server.ts) and lets it run. */
async function collect(pid: number) {
  process.kill(pid, "SIGUSR2");
  await Bun.sleep(300);
}

/**
 * Server RSS added per idle WebSocket, over 2,000 of them: as it stands 1 s after they opened,
 * and after a full collection in the server (what the connections hold, without the garbage of
 * their handshakes).
 */
async function idleRss(pid: number, port: number, count: number) {
  await collect(pid);
  const before = readRss(pid).rssMiB * 1024 * 1024;
  const clients = await openManyLean(port, "/echo", count);
  await Bun.sleep(1000);
  const after = readRss(pid).rssMiB * 1024 * 1024;
  await collect(pid);
  const collected = readRss(pid).rssMiB * 1024 * 1024;
  close(clients);
  return { asIs: (after - before) / count, collected: (collected - before) / count };
}

function close(clients: LeanClient[]) {
  for (const client of clients) client.socket.end();
}

/** Every run's figure, by row and server: the table gives the median and the range. */
const rows: Record<string, Record<Kind, number[]>> = {};
function record(row: string, kind: Kind, value: number) {
  rows[row] ??= { bun: [], ws: [], corral: [], floor: [] };
  rows[row]![kind].push(value);
}

async function measure(kind: Kind) {
  const { child, port } = await startServer(kind);
  try {
    // First, on the fresh server: the garbage of the load rows would otherwise be counted.
    const idle = await idleRss(child.pid, port, 2000);
    record("RSS per idle connection (bytes, 2,000 idle)", kind, idle.asIs);
    record("the same after a full collection in the server", kind, idle.collected);
    record(
      "echo 64 B (msg per server CPU-s)",
      kind,
      (await echo(child.pid, port, 64, 64)).perCpuSecond,
    );
    record(
      "echo 16 KiB (msg per server CPU-s)",
      kind,
      (await echo(child.pid, port, 16 * 1024, 64)).perCpuSecond,
    );
    record(
      "64 members each send, N x N (deliveries per server CPU-s)",
      kind,
      (await everyoneSends(child.pid, port, 64)).perCpuSecond,
    );
    record(
      "one publish to 10,000 members (ms to the last, median of 5)",
      kind,
      await fanOut(port, 10_000),
    );
    record(
      "a side client's echo behind 4 clients flooding empty messages (ms, p99)",
      kind,
      await flood(port, 4),
    );
  } finally {
    child.kill();
    await child.exited;
  }
}

console.log(`bench websocket: ${pinning.description}, ${seconds} s per row, ${repeats} runs`);
// The servers take turns, in a rotated order each run: a machine whose speed drifts during the
// bench then shifts every server's figures alike, and the medians keep the ratios honest.
for (let run = 0; run < repeats; run++) {
  for (let turn = 0; turn < kinds.length; turn++) {
    const kind = kinds[(run + turn) % kinds.length]!;
    await measure(kind);
    console.log(`  run ${run + 1}: ${kind} done`);
  }
}

const median = (values: number[]) => {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};
/** A ratio with two decimals, or two significant digits when smaller than 0.1 (a latency row). */
const ratioText = (ratio: number) => (ratio < 0.1 ? ratio.toPrecision(2) : ratio.toFixed(2));
/** Each run's corral / Bun.serve (or floor / Bun.serve), as a range. */
const ratioRange = (row: Record<Kind, number[]>, kind: Kind) => {
  const ratios = row[kind].map((value, index) => value / row.bun[index]!);
  return `${ratioText(Math.min(...ratios))}-${ratioText(Math.max(...ratios))}`;
};
const format = (value: number) =>
  Number.isNaN(value)
    ? "-"
    : value >= 100
      ? Math.round(value).toLocaleString("en-US")
      : value.toFixed(1);
console.log(
  "\n| row (median) | Bun.serve | ws on Bun | corral | Bun.listen floor | corral / Bun.serve | floor / Bun.serve | corral / Bun.serve, each run |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
for (const [row, values] of Object.entries(rows)) {
  const [bun, ws, corral, floor] = kinds.map((kind) => median(values[kind]));
  console.log(
    `| ${row} | ${format(bun!)} | ${format(ws!)} | ${format(corral!)} | ${format(floor!)} | ${ratioText(corral! / bun!)}x | ${ratioText(floor! / bun!)}x | ${ratioRange(values, "corral")} |`,
  );
}
