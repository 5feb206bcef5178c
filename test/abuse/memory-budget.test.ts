import { expect, test } from "bun:test";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { type RunningExample, startExample } from "../examples/support/start-example.ts";

// Inputs that cost far more memory than their bytes, and clients that push megabytes and never
// read, must keep the server's resident memory within its budget line plus a fixed margin. The
// demo runs in its own process; its peak resident set (VmHWM) is read from /proc.

const mebibyte = 1024 * 1024;
const marginBytes = 48 * mebibyte;
const demoCommand = ["bun", "examples/demo/main.ts", "--port", "0"];

async function peakResidentBytes(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const line = status.split("\n").find((entry) => entry.startsWith("VmHWM:"));
  return Number(line?.split(/\s+/)[1]) * 1024;
}

function budgetBytes(demo: RunningExample): number {
  const match = /reserved ([\d.]+) MiB/.exec(demo.startupOutput);
  if (match === null) throw new Error(`no budget line in: ${demo.startupOutput}`);
  return Number(match[1]) * mebibyte;
}

async function postForm(port: number, body: Uint8Array): Promise<number> {
  using client = await RawClient.connect(port);
  client.send(
    "POST /form HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
      `Content-Length: ${body.length}\r\n\r\n`,
  );
  await client.sendAll(body);
  return (await client.response(20_000)).status;
}

async function sideStatus(port: number): Promise<number> {
  using side = await RawClient.connect(port);
  side.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n");
  return (await side.response()).status;
}

test("64 clients posting 1 MB forms (a&a&a&...) three times stay within the budget line + 48 MiB", async () => {
  await using demo = await startExample("demo", demoCommand);
  const form = new TextEncoder().encode("a&".repeat(512 * 1024 - 1).concat("a"));
  const statuses: number[] = [];
  for (let round = 0; round < 3; round++) {
    statuses.push(
      ...(await Promise.all(Array.from({ length: 64 }, () => postForm(demo.port, form)))),
    );
  }
  const peak = await peakResidentBytes(demo.child.pid);
  expect({
    formStatuses: [...new Set(statuses)],
    side: await sideStatus(demo.port),
    peakMiB: Math.ceil(peak / mebibyte),
    withinBudget: peak <= budgetBytes(demo) + marginBytes,
  }).toMatchObject({ formStatuses: [400], side: 200, withinBudget: true });
}, 60_000);

test("50 clients pipelining 5 MB of requests and never reading stay within the budget line + 48 MiB", async () => {
  await using demo = await startExample("demo", demoCommand);
  const pipelined = new TextEncoder().encode(
    "GET /hello HTTP/1.1\r\nHost: h\r\n\r\n".repeat((5 * mebibyte) / 33),
  );
  const readers: RawClient[] = [];
  for (let index = 0; index < 50; index++) {
    const client = await RawClient.connect(demo.port);
    client.stopReading();
    client.push(pipelined);
    readers.push(client);
  }
  // Served until each connection's output blocks: then nothing more is read from it.
  await waitForBlocked(readers);
  const peak = await peakResidentBytes(demo.child.pid);
  const side = await sideStatus(demo.port);
  for (const client of readers) client.destroy();
  expect({
    side,
    peakMiB: Math.ceil(peak / mebibyte),
    withinBudget: peak <= budgetBytes(demo) + marginBytes,
  }).toMatchObject({ side: 200, withinBudget: true });
}, 60_000);

/** Waits until no pipeliner's sending has advanced for a while (the server stopped reading). */
async function waitForBlocked(clients: readonly RawClient[]): Promise<void> {
  let previous = -1;
  for (let round = 0; round < 100; round++) {
    const sent = clients.reduce((total, client) => total + client.bytesSent, 0);
    if (sent === previous) return;
    previous = sent;
    await Bun.sleep(200);
  }
  throw new Error("the pipeliners never stopped sending");
}
