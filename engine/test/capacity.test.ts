import { expect, test } from "bun:test";
import { RawClient } from "./support/raw-client.ts";
import { startServer, waitUntil } from "./support/test-server.ts";

test("with maxConnections 4 busy connections the fifth gets the canned 503 and the four are still served", async () => {
  await using server = startServer(
    (exchange) => {
      exchange.writeText("ok");
    },
    { maxConnections: 4 },
  );
  // Each of the four is in the middle of a request head, so none is idle and none is reclaimed.
  const clients: RawClient[] = [];
  for (let index = 0; index < 4; index++) {
    const client = await RawClient.connect(server.port);
    client.send("GET / HTTP/1.1\r\n");
    clients.push(client);
  }
  await waitUntil(() => server.stats().connectionsOpen === 4, "four open connections");
  await waitUntil(() => server.stats().bytesIn === 4 * 16, "four heads begun");
  using fifth = await RawClient.connect(server.port);
  const rejected = await fifth.response();
  await fifth.waitForClose();
  expect(rejected.statusLine).toBe("HTTP/1.1 503 Service Unavailable");
  expect(rejected.header("retry-after")).toBe("1");
  expect(rejected.header("connection")).toBe("close");
  for (const client of clients) client.send("Host: h\r\n\r\n");
  const statuses = await Promise.all(
    clients.map(async (client) => (await client.response()).status),
  );
  expect({ statuses, stats: pick(server.stats()) }).toEqual({
    statuses: [200, 200, 200, 200],
    stats: { connectionsAccepted: 4, connectionsRejected: 1, peakConnections: 4 },
  });
  for (const client of clients) client.destroy();
});

test("with 1 worker and a queue of 1, the third concurrent request gets 503 and the first two complete", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const order: string[] = [];
  await using server = startServer(
    async (exchange) => {
      const path = exchange.path;
      order.push(`start ${path}`);
      if (path === "/first") await gate;
      exchange.writeText(path);
      order.push(`end ${path}`);
    },
    { workers: 1, maxQueuedRequests: 1 },
  );
  using first = await RawClient.connect(server.port);
  using second = await RawClient.connect(server.port);
  using third = await RawClient.connect(server.port);
  first.send("GET /first HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => order.length === 1, "the first handler to start");
  second.send("GET /second HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().queuedRequests === 1, "the second request to queue");
  third.send("GET /third HTTP/1.1\r\nHost: h\r\n\r\n");
  const busy = await third.response();
  await third.waitForClose();
  expect(busy.statusLine).toBe("HTTP/1.1 503 Service Unavailable");
  expect(busy.header("retry-after")).toBe("1");
  release();
  const [firstResponse, secondResponse] = await Promise.all([first.response(), second.response()]);
  expect({
    bodies: [firstResponse.text, secondResponse.text],
    order,
    queueFull: server.stats().errors.queueFull,
    workersBusy: server.stats().workersBusy,
  }).toEqual({
    bodies: ["/first", "/second"],
    order: ["start /first", "end /first", "start /second", "end /second"],
    queueFull: 1,
    workersBusy: 0,
  });
});

function pick(stats: ReturnType<ReturnType<typeof startServer>["stats"]>) {
  return {
    connectionsAccepted: stats.connectionsAccepted,
    connectionsRejected: stats.connectionsRejected,
    peakConnections: stats.peakConnections,
  };
}
