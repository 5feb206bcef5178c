import { expect, test } from "bun:test";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { startExample } from "../examples/support/start-example.ts";

// Inputs that cost far more memory than their bytes, and clients that push megabytes and never
// read, must keep the server's resident memory within its budget line plus a fixed margin. The
// demo runs in its own process; its peak resident set (VmHWM) is read from /proc.

const mebibyte = 1024 * 1024;
const marginBytes = 48 * mebibyte;

async function peakResidentBytes(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const line = status.split("\n").find((entry) => entry.startsWith("VmHWM:"));
  return Number(line?.split(/\s+/)[1]) * 1024;
}

function budgetBytes(startupOutput: string): number {
  const match = /reserved ([\d.]+) MiB/.exec(startupOutput);
  if (match === null) throw new Error(`no budget line in: ${startupOutput}`);
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

test("64 clients posting 1 MB forms and 50 non-reading 5 MB pipeliners stay within the budget line + 48 MiB", async () => {
  await using demo = await startExample("demo", ["bun", "examples/demo/main.ts", "--port", "0"]);
  const budget = budgetBytes(demo.startupOutput);
  // a&a&a&... : the most parameters a byte count can carry.
  const form = new TextEncoder().encode("a&".repeat(512 * 1024 - 1).concat("a"));
  const statuses: number[] = [];
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(Array.from({ length: 64 }, () => postForm(demo.port, form)));
    statuses.push(...answers);
  }
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
  // Let the pipeliners push until their connections block both ways.
  await Bun.sleep(3000);
  using side = await RawClient.connect(demo.port);
  side.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n");
  const sideStatus = (await side.response()).status;
  const peak = await peakResidentBytes(demo.child.pid);
  for (const client of readers) client.destroy();
  console.log(
    `peak RSS ${(peak / mebibyte).toFixed(1)} MiB, budget ${(budget / mebibyte).toFixed(1)} MiB`,
    [...new Set(statuses)],
    sideStatus,
  );
  expect({
    formStatuses: [...new Set(statuses)],
    sideStatus,
    withinBudget: peak <= budget + marginBytes,
  }).toEqual({ formStatuses: [400], sideStatus: 200, withinBudget: true });
}, 60_000);
