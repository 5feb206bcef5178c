import { expect, test } from "bun:test";
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RawClient } from "../../engine/test/support/raw-client.ts";

// A log reader that falls behind (a stalled shipper, a paused `| less`) or never reads. Before,
// the request log went out with `Bun.write(Bun.stdout)` and failure reports with `console.error`:
// both a blocking `write()` on a pipe, so once its 64 KiB were full the whole server slept in the
// kernel. Requests with 8 KB paths (an 8 KB log line each) stopped being answered after 8 of them,
// and a side client timed out. The server runs in another process, its log on a named pipe the
// test opens and does not read (Bun's own `"pipe"` reads eagerly).

const longPath = `/${"a".repeat(8000)}`;
/** Every answer, and the side client's, must come this fast (they take about a millisecond). */
const promptMs = 1000;

/** A named pipe nobody reads yet: hand `writeFd` to the server, `drain` reads what it holds. */
function unreadPipe() {
  const folder = mkdtempSync(join(tmpdir(), "corral-unread-log-"));
  const path = join(folder, "log");
  expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
  const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(path, constants.O_WRONLY);
  const buffer = Buffer.alloc(1 << 20);
  let text = "";
  return {
    writeFd,
    /** Reads until `done(text)` holds on everything read so far. */
    async drain(done: (text: string) => boolean | Promise<boolean>, what: string): Promise<string> {
      const deadline = Date.now() + 5000;
      for (;;) {
        try {
          for (;;) text += buffer.toString("utf8", 0, readSync(readFd, buffer));
        } catch {
          // EAGAIN: the pipe is empty for now.
        }
        if (await done(text)) return text;
        if (Date.now() > deadline) throw new Error(`timed out reading ${what}`);
        await Bun.sleep(5);
      }
    },
    [Symbol.dispose]() {
      closeSync(readFd);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

interface LogStats {
  readonly written: number;
  readonly dropped: number;
  readonly queued: number;
}

/** Starts the fixture server with its log on `pipeFd`; its port and counters come over IPC. */
async function startServer(mode: "logger" | "failures", pipeFd: number) {
  const { promise: port, resolve: resolvePort } = Promise.withResolvers<number>();
  let answerStats: (stats: LogStats) => void = () => {};
  const child = Bun.spawn(
    [process.execPath, join(import.meta.dir, "fixtures/unread-log-server.ts"), mode],
    {
      cwd: join(import.meta.dir, "../.."),
      stdin: "ignore",
      stdout: mode === "logger" ? pipeFd : "ignore",
      stderr: mode === "failures" ? pipeFd : "ignore",
      ipc: (message: { port?: number; log?: LogStats }) => {
        if (message.port !== undefined) resolvePort(message.port);
        if (message.log !== undefined) answerStats(message.log);
      },
    },
  );
  closeSync(pipeFd);
  return {
    port: await port,
    /** The logger's counters. */
    stats(): Promise<LogStats> {
      const { promise, resolve } = Promise.withResolvers<LogStats>();
      answerStats = resolve;
      child.send("stats");
      return promise;
    },
    [Symbol.dispose]: () => child.kill(),
  };
}

/** Sends each path on its own connection in batches of 10 pipelined requests. */
async function flood(port: number, paths: readonly string[]) {
  const statuses: number[] = [];
  let slowestMs = 0;
  for (let start = 0; start < paths.length; start += 10) {
    const batch = paths.slice(start, start + 10);
    using client = await RawClient.connect(port);
    const sentAt = performance.now();
    client.send(batch.map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
    const responses = await client.responses(batch.length, promptMs);
    slowestMs = Math.max(slowestMs, performance.now() - sentAt);
    statuses.push(...responses.map((response) => response.status));
  }
  return { statuses, slowestMs };
}

async function sideRequest(port: number, path: string) {
  using side = await RawClient.connect(port);
  const sentAt = performance.now();
  side.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
  const response = await side.response(promptMs);
  return { status: response.status, text: response.text, ms: performance.now() - sentAt };
}

test("logger(): with stdout a pipe nobody reads, requests are answered and lines past 1 MiB drop", async () => {
  using pipe = unreadPipe();
  using server = await startServer("logger", pipe.writeFd);
  const { port } = server;
  const requests = 300; // 2.4 MB of lines: the pipe's 64 KiB, a batch in the writer, 1 MiB waiting
  const { statuses, slowestMs } = await flood(port, Array(requests).fill(longPath));
  const side = await sideRequest(port, "/ok");
  const waiting = await server.stats();
  expect({
    statuses: new Set([...statuses, side.status]),
    prompt: slowestMs < promptMs && side.ms < promptMs,
    dropped: waiting.dropped > 0,
    // The side request's short line may wait too.
    waitingAtMost1MiB: (waiting.queued - 1) * longPath.length <= 1024 * 1024,
  }).toEqual({ statuses: new Set([200]), prompt: true, dropped: true, waitingAtMost1MiB: true });
  // Read, the pipe takes every line handed to the writer, whole; every line is written or dropped.
  let log = waiting;
  const text = await pipe.drain(async (read) => {
    log = await server.stats();
    return (
      log.written + log.dropped === requests + 1 && read.split("\n").length - 1 === log.written
    );
  }, "every line");
  const paths = text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line).path);
  expect({
    lines: paths.length,
    others: paths.filter((path) => path !== longPath && path !== "/ok"),
    droppedSinceRead: log.dropped - waiting.dropped,
  }).toEqual({ lines: log.written, others: [], droppedSinceRead: 0 });
}, 15_000);

test("failure reports: with stderr a pipe nobody reads, 500s are answered and reports past 1 MiB drop, counted", async () => {
  using pipe = unreadPipe();
  using server = await startServer("failures", pipe.writeFd);
  const { port } = server;
  // 32 kinds of failure, each reported in full 10 times a second: about 2.9 MB of reports.
  const paths = [];
  for (let index = 0; index < 384; index++) paths.push(`/boom/${index % 32}${longPath}`);
  const { statuses, slowestMs } = await flood(port, paths);
  const side = await sideRequest(port, "/ok");
  expect({
    statuses: new Set(statuses),
    side: side.status,
    prompt: slowestMs < promptMs && side.ms < promptMs,
  }).toEqual({ statuses: new Set([500]), side: 200, prompt: true });
  // What operators see is what console.error printed: the line naming the request, then the
  // error with its stack; and the reports dropped are counted in a line of their own.
  const text = await pipe.drain(
    (read) => /corral: \d+ failure reports were dropped/.test(read),
    "the count of dropped reports",
  );
  const first = text.slice(0, text.indexOf("\ncorral: GET /boom/1/"));
  expect(first.startsWith(`corral: GET /boom/0${longPath} answered 500 after an error: `)).toBe(
    true,
  );
  expect(first).toContain("Boom0: boom\n");
  expect(first).toContain("unread-log-server.ts");
  const dropped = Number(/corral: (\d+) failure reports were dropped/.exec(text)?.[1]);
  expect(dropped).toBeGreaterThan(0);
}, 15_000);
