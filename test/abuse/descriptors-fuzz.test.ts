// Seeded random clients of a whole App in a process of its own (streams, SSE, uploads, forms,
// compression, files with and without sendfile, WebSockets) leave at random points, as in
// test/abuse/leaving-fuzz.test.ts; then the server process must hold no socket and no file more
// than before. Counted in /proc/PID/fd, which stats() cannot see: a socket the engine forgot
// without closing held its descriptor for good (engine/test/abuse/socket-descriptors.test.ts).
// Set CORRAL_FUZZ_SEED to replay another run.
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { inLanes, leaveAtRandom } from "../../engine/test/support/leaving-clients.ts";
import { caseSeed, masterSeed, SeededRandom } from "../../engine/test/support/seeded-random.ts";
import { openDescriptors, startServerProcess } from "../../engine/test/support/server-process.ts";
import { concat, isUpgrade, randomRequest } from "./support/random-app.ts";

const cases = 150;

test(`${cases} random clients of an App in its own process leave: no socket or file stays open there (seed ${masterSeed})`, async () => {
  await using server = await startServerProcess(`${import.meta.dir}/fixtures/random-app-server.ts`);
  const folder = server.ready.folder as string;
  try {
    const before = openDescriptors(server.pid, folder);
    const problems: unknown[] = [];
    await inLanes(cases, 10, async (index) => {
      const random = new SeededRandom(caseSeed("descriptors", index));
      const requests: Uint8Array[] = [];
      for (let count = random.between(1, 3); requests.length < count; ) {
        const request = randomRequest(random);
        requests.push(request);
        if (isUpgrade(request)) break;
      }
      const pace = { pauseMs: 60, blindMs: 2000 };
      const problem = await leaveAtRandom(server.ready.port, concat(requests), random, pace);
      if (problem !== null) problems.push(problem);
    });
    let counters: Record<string, unknown> = {};
    for (let tries = 0; tries < 100; tries++) {
      counters = await server.ask();
      if (counters.connections === 0 && counters.webSockets === 0) break;
      await Bun.sleep(50);
    }
    await Bun.sleep(200);
    const after = openDescriptors(server.pid, folder);
    expect({
      problems,
      counters,
      socketsLeft: after.sockets - before.sockets,
      filesLeft: after.files - before.files,
    }).toEqual({
      problems: [],
      counters: { connections: 0, webSockets: 0, subscribers: 0, logged: 0 },
      socketsLeft: 0,
      filesLeft: 0,
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}, 60_000);
