// Seeded random clients of a whole App that leave: each sends a random prefix of a random run of
// requests (a stream, a sleep, a streamed upload, a form, a compressed page, an SSE stream, a file
// whole or by range, read or sent with sendfile, a WebSocket exchanging messages), cut anywhere,
// in random writes; reads at once, late or never; then half-closes, closes abruptly, or stays
// until the server gives up on it. What must hold: a side client is answered throughout, nothing
// is logged for the operator (a client leaving is not a failure), and once the last client is
// gone every resource is back: connections, workers, queues, WebSockets, SSE subscribers.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  heldResources,
  inLanes,
  leaveAtRandom,
  nothingHeld,
  sideRequests,
} from "../../engine/test/support/leaving-clients.ts";
import { caseSeed, masterSeed, SeededRandom } from "../../engine/test/support/seeded-random.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import {
  concat,
  isUpgrade,
  randomApp,
  randomAppPool,
  randomRequest,
} from "./support/random-app.ts";

const cases = 120;
const parallelClients = 10;
const pace = { pauseMs: 60, blindMs: 2000 };
test(`${cases} random clients of an App leave at random points: the side client is served, nothing is logged, every resource comes back (seed ${masterSeed})`, async () => {
  const folder = mkdtempSync(join(tmpdir(), "corral-leaving-"));
  writeFileSync(join(folder, "big.bin"), new Uint8Array(2 << 20).fill(0x66));
  const logged: string[] = [];
  const failures: unknown[] = [];
  await using pool = randomAppPool();
  const { app, channel } = randomApp(folder, logged, pool);
  const server = listenQuietly(app);
  let publishing = true;
  const publisher = (async () => {
    for (let n = 0; publishing; n++) {
      channel.publish({ n });
      await Bun.sleep(10);
    }
  })();
  try {
    const runCase = async (index: number) => {
      const seed = caseSeed("app-leaving", index);
      const random = new SeededRandom(seed);
      // A WebSocket takes the connection: nothing is sent after its frames.
      const requests: Uint8Array[] = [];
      for (let count = random.between(1, 3); requests.length < count; ) {
        const request = randomRequest(random);
        requests.push(request);
        if (isUpgrade(request)) break;
      }
      const whole = concat(requests);
      const problem = await leaveAtRandom(server.port, whole, random, pace);
      if (problem !== null) failures.push({ seed, problem });
    };
    const side = sideRequests(
      server.port,
      "GET /sleep/0 HTTP/1.1\r\nHost: h\r\n\r\n",
      (response) => response.text === "slept",
    );
    await inLanes(cases, parallelClients, runCase);
    failures.push(...(await side));
    const resources = () => ({
      ...heldResources(app.stats()),
      webSocketsOpen: app.stats().webSockets.open,
      subscribers: channel.subscribers,
      // Jobs of clients that left may finish, but none stays queued or running.
      poolJobsHeld: pool.stats().busy + pool.stats().queued,
    });
    const none = { ...nothingHeld, webSocketsOpen: 0, subscribers: 0, poolJobsHeld: 0 };
    await waitUntil(() => Bun.deepEquals(resources(), none), "every resource back", 10_000).catch(
      () => {},
    );
    const stats = app.stats();
    expect({
      seed: masterSeed,
      failures: failures.slice(0, 5),
      failureCount: failures.length,
      logged: logged.slice(0, 3),
      resources: resources(),
      // The run reached what it means to test: upgrades, files sent with sendfile, many requests.
      exercised: {
        webSockets: stats.webSockets.accepted > 0,
        sendfile: stats.bytesSentFromFiles > 0,
        poolJobs: pool.stats().completed > 0,
        requests: stats.requests > cases / 2,
      },
    }).toEqual({
      seed: masterSeed,
      failures: [],
      failureCount: 0,
      logged: [],
      resources: none,
      exercised: { webSockets: true, sendfile: true, poolJobs: true, requests: true },
    });
  } finally {
    publishing = false;
    await publisher;
    await app.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}, 120_000);
