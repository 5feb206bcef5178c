// Seeded random stops: an App busy with random clients (streams, sleeps, uploads, forms,
// compressed pages, SSE, files, WebSockets, several requests pipelined on one connection) is
// stopped at a random moment with a random grace. What must hold: stop() resolves within its
// grace (and a margin), every client's connection closes, every answer a client received whole
// is a right one (nothing cut short passes for complete), nothing is logged for the operator,
// no connection is accepted afterwards, and nothing is left held.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import {
  parseResponses,
  RawClient,
  type WireResponse,
} from "../../engine/test/support/raw-client.ts";
import { caseSeed, masterSeed, SeededRandom } from "../../engine/test/support/seeded-random.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import {
  concat,
  isUpgrade,
  randomApp,
  randomAppPool,
  randomRequest,
} from "./support/random-app.ts";

const cases = 16;
/** What stop() may take beyond its grace: closing sockets and the last turns of the loop. */
const stopMarginMs = 1500;

/** Why `response` (to `target`) is not a right answer, or null when it is. */
function wrongAnswer(target: string, response: WireResponse, fileBytes: number): string | null {
  const coding = response.header("content-encoding");
  const body =
    coding === "gzip"
      ? new Uint8Array(gunzipSync(response.body))
      : coding === "br"
        ? new Uint8Array(brotliDecompressSync(response.body))
        : response.body;
  const expectedStatus = target.startsWith("/ws")
    ? 101
    : response.header("content-range")
      ? 206
      : 200;
  if (response.status !== expectedStatus) return `${target}: ${response.statusLine}`;
  const text = () => Buffer.from(body).toString("latin1");
  if (target.startsWith("/sleep/") || target.startsWith("/pool/")) {
    return text() === "slept" ? null : `${target}: ${text()}`;
  }
  if (target.startsWith("/off/")) return text() === "off" ? null : `${target}: ${text()}`;
  if (target.startsWith("/page/")) {
    return text() === "p".repeat(Number(target.slice(6))) ? null : `${target}: a wrong page`;
  }
  if (target.startsWith("/stream/")) {
    return text() === "s".repeat(8000 * Number(target.slice(8)))
      ? null
      : `${target}: a short stream`;
  }
  if (target.startsWith("/files/") || target.startsWith("/sent/")) {
    const range = response.header("content-range");
    const from = range === undefined ? 0 : Number(range.slice(6, range.indexOf("-")));
    const whole = body.length === fileBytes - from && body.every((byte) => byte === 0x66);
    return whole ? null : `${target}: ${body.length} bytes from ${from}`;
  }
  return null;
}

test(`${cases} random stops of a busy App: stop() keeps its grace, every client is closed, every whole answer is right (seed ${masterSeed})`, async () => {
  const folder = mkdtempSync(join(tmpdir(), "corral-stop-"));
  const fileBytes = 2 << 20;
  writeFileSync(join(folder, "big.bin"), new Uint8Array(fileBytes).fill(0x66));
  const failures: unknown[] = [];
  const logged: string[] = [];
  await using pool = randomAppPool();
  try {
    for (let index = 0; index < cases; index++) {
      const seed = caseSeed("app-stop", index);
      const random = new SeededRandom(seed);
      const fail = (problem: unknown) => failures.push({ seed, problem });
      const { app, channel } = randomApp(folder, logged, pool);
      const server = listenQuietly(app);
      channel.publish({ n: 0 });
      const clients = await Promise.all(
        Array.from({ length: random.between(2, 10) }, async () => {
          const requests: Uint8Array[] = [];
          for (let count = random.between(1, 3); requests.length < count; ) {
            const request = randomRequest(random);
            requests.push(request);
            if (isUpgrade(request)) break;
          }
          const client = await RawClient.connect(server.port);
          const lateReader = random.oneIn(4);
          if (lateReader) client.stopReading();
          client.push(concat(requests));
          const targets = requests.map(
            (request) => Buffer.from(request.subarray(0, 80)).toString("latin1").split(" ")[1]!,
          );
          return { client, targets, lateReader };
        }),
      );
      await Bun.sleep(random.between(0, 80));
      const graceMs = random.pick([0, 50, 300, 1500]);
      const began = Date.now();
      await Promise.race([app.stop({ graceMs }), Bun.sleep(graceMs + stopMarginMs)]);
      const tookMs = Date.now() - began;
      if (tookMs >= graceMs + stopMarginMs)
        fail(`stop() took over ${graceMs} + ${stopMarginMs} ms`);
      for (const { client, targets, lateReader } of clients) {
        if (lateReader) client.resumeReading();
        try {
          await client.waitForClose(3000);
        } catch {
          fail(`a client of ${targets.join(", ")} was not closed`);
        }
        const answers = parseResponses(client.received, false);
        // After a 101 come WebSocket frames, not answers.
        const upgraded = targets[targets.length - 1] === "/ws";
        if (answers.length > targets.length && !upgraded) {
          fail(`${answers.length} answers to ${targets.length}`);
        }
        answers.slice(0, targets.length).forEach((response, at) => {
          const wrong = wrongAnswer(targets[at]!, response, fileBytes);
          if (wrong !== null) fail(wrong);
        });
        client.destroy();
      }
      const refused = await RawClient.connect(server.port).then(
        (late) => {
          late.destroy();
          return false;
        },
        () => true,
      );
      if (!refused) fail("a connection was accepted after stop()");
      const stats = app.stats();
      const held = {
        connectionsOpen: stats.connectionsOpen,
        workersBusy: stats.workersBusy,
        webSocketsOpen: stats.webSockets.open,
        subscribers: channel.subscribers,
        internalErrors: stats.internalErrors,
      };
      if (Object.values(held).some((count) => count !== 0)) fail({ held });
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  expect({
    seed: masterSeed,
    failures: failures.slice(0, 6),
    failureCount: failures.length,
    logged: logged.slice(0, 3),
  }).toEqual({ seed: masterSeed, failures: [], failureCount: 0, logged: [] });
}, 120_000);
