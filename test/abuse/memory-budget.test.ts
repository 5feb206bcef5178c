import { expect, test } from "bun:test";
import { defaultLimits } from "corral/engine";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { type RunningExample, startExample } from "../examples/support/start-example.ts";

// Form floods and clients that pipeline megabytes without reading, at once and on one demo
// process, as a real server meets them: in two waves, the first wave's pipeliners closed before
// the second comes. A side client is served after each wave, and the peak resident set
// (VmHWM, read from /proc) stays within the stated limit, which is, MiB by MiB:
// - the budget line (107.1 MiB with the defaults): everything the engine reserves, which a
//   server may touch whole (these forms touch every worker's 1 MiB body storage);
// - 48 MiB of runtime: Bun's own resident set with the demo loaded (37-46 MiB on this machine,
//   25 of them the mapped executable), and the young generation between two collections;
// - `maxUnreadInputBytes` (8 MiB): socket chunks of pipelined requests kept across turns.
// Nothing else may grow with the attack: a stalled client keeps at most its head buffer (part
// of the budget), a chunk is freed as soon as it is used up or dropped, and the body of a form
// is only ever in the worker's storage.

const mebibyte = 1024 * 1024;
const runtimeBytes = 48 * mebibyte;
const demoCommand = ["bun", "examples/demo/main.ts", "--port", "0"];
const encoder = new TextEncoder();
const boundary = "formflood";
/** 1 MB of `a&a&...`: more entries than `maxParameters`, refused (400) on its bytes. */
const urlencodedForm = encoder.encode("a&".repeat(512 * 1024 - 1).concat("a"));
/** 64 fields of 16,000 bytes (the most parts a body may have): accepted, each part hashed. */
const multipartForm = encoder.encode(
  Array.from(
    { length: 64 },
    (_, index) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="field${index}"\r\n\r\n` +
      `${"v".repeat(16_000)}\r\n`,
  ).join("") + `--${boundary}--\r\n`,
);
const pipelined = encoder.encode(
  "GET /hello HTTP/1.1\r\nHost: h\r\n\r\n".repeat((5 * mebibyte) / 33),
);

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

async function post(port: number, path: string, type: string, body: Uint8Array) {
  using client = await RawClient.connect(port);
  client.send(
    `POST ${path} HTTP/1.1\r\nHost: h\r\nContent-Type: ${type}\r\n` +
      `Content-Length: ${body.length}\r\n\r\n`,
  );
  await client.sendAll(body);
  return (await client.response(20_000)).status;
}

/** 32 clients posting URL-encoded forms and 32 posting multipart ones, three times each. */
async function formFlood(port: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let round = 0; round < 3; round++) {
    const posts = Array.from({ length: 32 }, () => [
      post(port, "/form", "application/x-www-form-urlencoded", urlencodedForm),
      post(port, "/upload", `multipart/form-data; boundary=${boundary}`, multipartForm),
    ]);
    statuses.push(...(await Promise.all(posts.flat())));
  }
  return statuses;
}

async function sideStatus(port: number): Promise<number> {
  using side = await RawClient.connect(port);
  side.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n");
  return (await side.response()).status;
}

/** Waits until no pipeliner's sending has advanced for a while (the server stopped reading). */
async function waitForBlocked(clients: readonly RawClient[]): Promise<void> {
  let previous = -1;
  for (let round = 0; round < 150; round++) {
    const sent = clients.reduce((total, client) => total + client.bytesSent, 0);
    if (sent === previous) return;
    previous = sent;
    await Bun.sleep(200);
  }
  throw new Error("the pipeliners never stopped sending");
}

/** 50 clients pipelining 5 MB each and never reading, beside the form flood. */
async function wave(port: number) {
  const pipeliners = await RawClient.nonReaders(port, 50, pipelined);
  const formStatuses = await formFlood(port);
  await waitForBlocked(pipeliners);
  const side = await sideStatus(port);
  for (const client of pipeliners) client.destroy();
  // A 408: a post the slow-upload rule closed. This process feeds 64 posts and 50 pipeliners at
  // once, so some posts send nothing for a second while others wait for their workers.
  const answered = formStatuses.filter((status) => status !== 408);
  return { formStatuses: [...new Set(answered)].sort(), side };
}

test("two waves of 64 form posters and 50 non-reading 5 MB pipeliners at once stay within the budget line + 48 MiB runtime + maxUnreadInputBytes", async () => {
  await using demo = await startExample("demo", demoCommand);
  const waves = [await wave(demo.port), await wave(demo.port)];
  const side = await sideStatus(demo.port);
  const peak = await peakResidentBytes(demo.child.pid);
  const limit = budgetBytes(demo) + runtimeBytes + defaultLimits.maxUnreadInputBytes;
  expect({
    waves,
    side,
    peakMiB: Math.ceil(peak / mebibyte),
    limitMiB: limit / mebibyte,
    withinLimit: peak <= limit,
  }).toMatchObject({
    waves: [
      { formStatuses: [200, 400], side: 200 },
      { formStatuses: [200, 400], side: 200 },
    ],
    side: 200,
    withinLimit: true,
  });
}, 120_000);
