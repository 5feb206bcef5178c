import { expect, test } from "bun:test";
import type { Exchange } from "../../index.ts";
import { RawClient } from "../support/raw-client.ts";
import { startServer, waitUntil } from "../support/test-server.ts";

// Attackers pipeline many requests and never read: their responses fill the kernel's buffers
// (a few MiB on loopback), then the server's writes to them block for good. Other clients must
// still be served at once, and the attackers must not keep more than their share of workers.

const bigBody = new Uint8Array(60_000).fill(0x61);
const streamChunk = new Uint8Array(60_000).fill(0x62);

async function handler(exchange: Exchange): Promise<void> {
  const path = exchange.path;
  if (path === "/big") {
    exchange.write(bigBody);
  } else if (path === "/stream") {
    const stream = exchange.stream();
    for (;;) {
      stream.write(streamChunk);
      await stream.flush();
    }
  } else {
    exchange.writeText(path === "/hello" ? "Hello, World!" : "pong");
  }
}

function pipelined(path: string, count: number): Uint8Array {
  return new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`.repeat(count));
}

async function ping(port: number) {
  using side = await RawClient.connect(port);
  side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
  return await side.response(3000);
}

test("as many non-reading pipeliners of staged bodies as workers: a side client is served, the stalled longest is closed", async () => {
  await using server = startServer(handler, { workers: 8 });
  const clients = await RawClient.nonReaders(server.port, 8, pipelined("/big", 200));
  await waitUntil(
    () => server.stats().workersHeldByBlockedOutput === 8,
    "every worker held by a blocked connection",
    25_000,
  );
  const answer = await ping(server.port);
  const stats = server.stats();
  expect({ status: answer.status, body: answer.text, closed: stats.blockedOutputCloses }).toEqual({
    status: 200,
    body: "pong",
    closed: 1,
  });
  // Each blocked connection stopped dispatching: one request in flight at most, the rest unread.
  expect(stats.requests).toBeLessThan(8 * 200);
  for (const client of clients) client.destroy();
}, 30_000);

test("non-reading pipeliners of small responses hold no worker at all", async () => {
  await using server = startServer(handler, { workers: 4 });
  const clients = await RawClient.nonReaders(server.port, 6, pipelined("/hello", 120_000));
  await waitUntil(
    () => server.stats().blockedConnections === 6,
    "six connections with blocked output",
    25_000,
  );
  const stats = server.stats();
  expect({ busy: stats.workersBusy, held: stats.workersHeldByBlockedOutput }).toEqual({
    busy: 0,
    held: 0,
  });
  const answer = await ping(server.port);
  expect({ status: answer.status, closed: server.stats().blockedOutputCloses }).toEqual({
    status: 200,
    closed: 0,
  });
  for (const client of clients) client.destroy();
}, 30_000);

test("stream subscribers that never read: a side client is served, the stalled longest is closed", async () => {
  await using server = startServer(handler, { workers: 4 });
  const clients = await RawClient.nonReaders(server.port, 4, pipelined("/stream", 1));
  await waitUntil(
    () => server.stats().workersHeldByBlockedOutput === 4,
    "every worker held by a blocked stream",
    25_000,
  );
  const answer = await ping(server.port);
  expect({ status: answer.status, closed: server.stats().blockedOutputCloses }).toEqual({
    status: 200,
    closed: 1,
  });
  for (const client of clients) client.destroy();
}, 30_000);
