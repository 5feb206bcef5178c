import { expect, test } from "bun:test";
import { slowHeadMs } from "../../src/internal/slow-heads.ts";
import { RawClient } from "../support/raw-client.ts";
import { startServer, waitUntil } from "../support/test-server.ts";

// A flood of connections that send nothing (or finished a request and stay open) fills the
// connection table. New clients must still be admitted: idle connections are closed to make
// room, oldest first. Connections in the middle of a request are never reclaimed, except one
// whose head has been arriving for a second or more (slowloris: a head takes one packet).

const request = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";

async function open(port: number, count: number): Promise<RawClient[]> {
  const clients: RawClient[] = [];
  for (let index = 0; index < count; index++) clients.push(await RawClient.connect(port));
  return clients;
}

test("twice maxConnections idle connections: a new client gets its 200, oldest idle closed first", async () => {
  await using server = startServer((exchange) => exchange.writeText("ok"), { maxConnections: 8 });
  const flood = await open(server.port, 16);
  await waitUntil(
    () => server.stats().idleConnectionsReclaimed === 8,
    "eight idle connections reclaimed",
  );
  using side = await RawClient.connect(server.port);
  side.send(request);
  const answer = await side.response();
  await waitUntil(() => flood[8]!.closed, "the oldest survivor to be closed");
  expect({
    status: answer.status,
    closedInOrder: flood.map((client) => client.closed),
    stats: {
      reclaimed: server.stats().idleConnectionsReclaimed,
      rejected: server.stats().connectionsRejected,
      open: server.stats().connectionsOpen,
    },
  }).toEqual({
    status: 200,
    closedInOrder: [...Array(9).fill(true), ...Array(7).fill(false)],
    stats: { reclaimed: 9, rejected: 0, open: 8 },
  });
  for (const client of flood) client.destroy();
});

test("a keep-alive connection between requests is idle and reclaimable", async () => {
  await using server = startServer((exchange) => exchange.writeText("ok"), { maxConnections: 2 });
  using first = await RawClient.connect(server.port);
  first.send(request);
  expect((await first.response()).status).toBe(200);
  using second = await RawClient.connect(server.port);
  second.send(request);
  expect((await second.response()).status).toBe(200);
  using third = await RawClient.connect(server.port);
  third.send(request);
  expect((await third.response()).status).toBe(200);
  await first.waitForClose();
  expect({
    secondClosed: second.closed,
    reclaimed: server.stats().idleConnectionsReclaimed,
  }).toEqual({ secondClosed: false, reclaimed: 1 });
});

test("connections in the middle of a request or a response are never reclaimed", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  await using server = startServer(
    async (exchange) => {
      if (exchange.path === "/slow") await gate;
      exchange.writeText("ok");
    },
    { maxConnections: 2 },
  );
  using partial = await RawClient.connect(server.port);
  partial.send("GET / HTTP/1.1\r\nHo");
  using handling = await RawClient.connect(server.port);
  handling.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().workersBusy === 1, "the slow handler to run");
  using newcomer = await RawClient.connect(server.port);
  const rejected = await newcomer.response();
  release();
  partial.send("st: h\r\n\r\n");
  const [finished, slow] = await Promise.all([partial.response(), handling.response()]);
  expect({
    newcomer: rejected.status,
    partial: finished.status,
    slow: slow.status,
    reclaimed: server.stats().idleConnectionsReclaimed,
  }).toEqual({ newcomer: 503, partial: 200, slow: 200, reclaimed: 0 });
});

test("a connection lingering after an error answer is reclaimed before the table turns a client away", async () => {
  await using server = startServer((exchange) => exchange.writeText("ok"), { maxConnections: 1 });
  using rejected = await RawClient.connect(server.port);
  // A malformed request: answered 400, then the connection lingers to drain what the client sends.
  rejected.send("GET / HTTP/1.1\r\nBad Header: x\r\n\r\n");
  expect((await rejected.response()).status).toBe(400);
  using newcomer = await RawClient.connect(server.port);
  newcomer.send(request);
  const answer = await newcomer.response();
  expect({ status: answer.status, reclaimed: server.stats().idleConnectionsReclaimed }).toEqual({
    status: 200,
    reclaimed: 1,
  });
});

test("slowloris: heads trickled a byte at a time fill the table; one arriving for a second is answered 408 and closed to admit a new client, a younger one is not", async () => {
  await using server = startServer((exchange) => exchange.writeText("ok"), { maxConnections: 4 });
  const slow = await open(server.port, 4);
  for (const client of slow) client.send("GET / HTTP/1.1\r\nX-Slow: ");
  const trickle = setInterval(() => {
    for (const client of slow) if (!client.closed) client.send("a");
  }, 100);
  try {
    await waitUntil(() => server.stats().bytesIn >= 4 * 26, "every slow head to start");
    // Every head is younger than a second (slowHeadMs): the newcomer is turned away.
    using early = await RawClient.connect(server.port);
    early.send(request);
    expect((await early.response()).status).toBe(503);
    await Bun.sleep(slowHeadMs);
    using newcomer = await RawClient.connect(server.port);
    newcomer.send(request);
    const answer = await newcomer.response();
    await slow[0]!.waitForClose();
    expect({
      newcomer: answer.status,
      // RFC 9110 §6.6.1: a 4xx carries a Date (the canned answer had none).
      oldest: slow[0]!.receivedText.replace(
        /\r\nDate: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n/,
        "\r\nDate: (now)\r\n",
      ),
      othersOpen: slow.slice(1).map((client) => client.closed),
      reclaimed: server.stats().slowHeadsReclaimed,
    }).toEqual({
      newcomer: 200,
      oldest:
        "HTTP/1.1 408 Request Timeout\r\nDate: (now)\r\nContent-Type: text/plain; charset=utf-8\r\n" +
        "Content-Length: 51\r\nConnection: close\r\n\r\n" +
        "Request Timeout: request head not received in time\n",
      othersOpen: [false, false, false],
      reclaimed: 1,
    });
  } finally {
    clearInterval(trickle);
    for (const client of slow) client.destroy();
  }
});
