import { expect, test } from "bun:test";
import type { Exchange } from "../../index.ts";
import { parseResponses, RawClient } from "../support/raw-client.ts";
import { startServer, waitUntil } from "../support/test-server.ts";

// A client pipelines requests and stops reading: the first answer (16 MiB, more than the
// kernel's buffers take) blocks the output, and nothing more is dispatched. Bun read the
// pipelined bytes in one chunk of up to 512 KiB; what is still unread must not stay in that
// chunk for as long as the client stalls. It is kept in the connection's head buffer
// (`maxHeaderBytes`) when it fits; past that it is dropped and the connection closes once its
// answers are written (RFC 9112 §9.3.2: a client retries pipelined requests left unanswered).

const bigBody = new Uint8Array(16 * 1024 * 1024).fill(0x61);
const small = "GET /small HTTP/1.1\r\nHost: h\r\n\r\n";
/** The head buffer holds exactly 20 pipelined small requests. */
const maxHeaderBytes = 20 * small.length;
const limits = { maxHeaderBytes, maxRequestLineBytes: 256 };

function handler(exchange: Exchange): void {
  if (exchange.path === "/big") exchange.borrowBody(bigBody);
  else exchange.writeText(exchange.path === "/ping" ? "pong" : "s");
}

/** A client that stops reading, then sends `/big` and `pipelinedBytes` in one write. */
async function stalledClient(port: number, pipelinedBytes: string): Promise<RawClient> {
  const client = await RawClient.connect(port);
  client.stopReading();
  client.send(`GET /big HTTP/1.1\r\nHost: h\r\n\r\n${pipelinedBytes}`);
  return client;
}

/** What the client got once it reads again: statuses and body lengths, and whether it closed. */
async function readEverything(client: RawClient, expected: number) {
  client.resumeReading();
  // The big answer first, looked at by length only: parsing 16 MiB on every read is slow.
  await client.waitFor(
    () => client.closed || client.received.length > bigBody.length,
    "the big answer",
    10_000,
  );
  await client.waitFor(
    () => client.closed || parseResponses(client.received, false).length >= expected,
    `${expected} responses or the close`,
    10_000,
  );
  if (client.closed) await client.waitForClose();
  const responses = parseResponses(client.received, client.closed);
  return {
    answers: responses.map((response) => `${response.status} ${response.body.length}`),
    closed: client.closed,
  };
}

async function ping(port: number): Promise<string> {
  using side = await RawClient.connect(port);
  side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
  return (await side.response(3000)).text;
}

test("pipelined bytes exactly filling the head buffer wait there and are all answered", async () => {
  await using server = startServer(handler, limits);
  using client = await stalledClient(server.port, small.repeat(20));
  await waitUntil(() => server.stats().blockedConnections === 1, "the output to block", 10_000);
  const side = await ping(server.port);
  const outcome = await readEverything(client, 21);
  expect({ side, ...outcome, drops: server.stats().pipelinedInputDrops }).toEqual({
    side: "pong",
    answers: [`200 ${bigBody.length}`, ...Array.from({ length: 20 }, () => "200 1")],
    closed: false,
    drops: 0,
  });
}, 20_000);

test("one byte past the head buffer: the unread requests are dropped, the answer sent, then the close", async () => {
  await using server = startServer(handler, limits);
  using client = await stalledClient(server.port, `${small.repeat(20)}G`);
  await waitUntil(
    () => server.stats().pipelinedInputDrops === 1,
    "the input to be dropped",
    10_000,
  );
  const side = await ping(server.port);
  // The client keeps sending: nothing of it is kept any more.
  client.send(small.repeat(1000));
  const outcome = await readEverything(client, 2);
  expect({ side, ...outcome, drops: server.stats().pipelinedInputDrops }).toEqual({
    side: "pong",
    answers: [`200 ${bigBody.length}`],
    closed: true,
    drops: 1,
  });
}, 20_000);

// A client that reads but pipelines more than one turn serves (64 requests): the rest of its
// chunk waits for the next turn. It is kept when it fits the head buffer, or within
// `maxUnreadInputBytes` for all connections together; past that it is dropped the same way.

/** 100 small requests in one write: 64 are answered in the first turn, 36 (1152 bytes) wait. */
async function turnOutcome(maxUnreadInputBytes: number) {
  await using server = startServer(handler, { ...limits, maxUnreadInputBytes });
  using client = await RawClient.connect(server.port);
  client.send(small.repeat(100));
  await client.waitFor(
    () => client.closed || parseResponses(client.received, false).length === 100,
    "100 answers or the close",
  );
  if (client.closed) await client.waitForClose();
  const stats = server.stats();
  return {
    answered: parseResponses(client.received, client.closed).length,
    closed: client.closed,
    drops: stats.pipelinedInputDrops,
    unreadNow: stats.unreadInputBytes,
  };
}

test("a chunk of exactly maxUnreadInputBytes is kept for the next turn; one byte less drops the rest", async () => {
  const chunkBytes = 100 * small.length;
  expect([await turnOutcome(chunkBytes), await turnOutcome(chunkBytes - 1)]).toEqual([
    { answered: 100, closed: false, drops: 0, unreadNow: 0 },
    { answered: 64, closed: true, drops: 1, unreadNow: 0 },
  ]);
});
