// Clients that leave while a stream is being written to them must not leave their sockets open
// in the server. When a write found the socket gone, the engine used to forget the socket without
// closing it, and Bun did not always close it either: 200 such clients left 58-102 descriptors
// open for good in the server's process, though stats() counted no connection (descriptors run
// out long before slots do). The server runs in a process of its own, as in production: in the
// test's own process the two ends share one event loop and the race did not show.
import { expect, test } from "bun:test";
import { RawClient } from "../support/raw-client.ts";
import { SeededRandom } from "../support/seeded-random.ts";
import { openDescriptors, startServerProcess } from "../support/server-process.ts";

test("clients that half-close or reset mid-stream leave no socket open in the server", async () => {
  await using server = await startServerProcess(`${import.meta.dir}/fixtures/streaming-server.ts`);
  const before = openDescriptors(server.pid).sockets;
  const random = new SeededRandom(7);
  const clients: RawClient[] = [];
  await Promise.all(
    Array.from({ length: 200 }, async (_, index) => {
      await Bun.sleep(index >> 2);
      const client = await RawClient.connect(server.ready.port);
      clients.push(client);
      if (random.oneIn(2)) client.stopReading();
      client.send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n".repeat(random.between(1, 3)));
      if (!random.oneIn(3)) await Bun.sleep(random.between(0, 30));
      if (random.oneIn(2)) client.end();
      else client.destroy();
    }),
  );
  // The half-closed clients stay a moment (the server writes on to them), then reset.
  await Bun.sleep(800);
  for (const client of clients) client.destroy();
  let connections = -1;
  for (let tries = 0; tries < 100 && connections !== 0; tries++) {
    await Bun.sleep(50);
    connections = (await server.ask()).connections as number;
  }
  await Bun.sleep(200);
  expect({ connections, socketsLeft: openDescriptors(server.pid).sockets - before }).toEqual({
    connections: 0,
    socketsLeft: 0,
  });
}, 30_000);
