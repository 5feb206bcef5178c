import { expect, test } from "bun:test";
import type { Exchange } from "../../index.ts";
import { RawClient } from "../support/raw-client.ts";
import { startServer, waitUntil } from "../support/test-server.ts";

// A request that waits for a worker keeps what it arrived with. Its head and the bytes after it
// move into the connection's head buffer when they fit, so the socket chunk (up to 512 KiB) is
// freed while it waits; a larger chunk is kept and counted in `unreadInputBytes`, and one that
// would pass `maxUnreadInputBytes` is refused at once like a full queue (503, `Retry-After`).

const maxHeaderBytes = 1024;
const largeBody = "b".repeat(2000);
const large = `POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: ${largeBody.length}\r\n\r\n${largeBody}`;
const small = "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nsmall";

/** One worker, held by `GET /slow` until `release` is called. */
function gatedServer(maxUnreadInputBytes: number) {
  const { promise: gate, resolve: release } = Promise.withResolvers<void>();
  const handler = async (exchange: Exchange) => {
    if (exchange.path === "/slow") await gate;
    exchange.writeText(`${exchange.path} ${exchange.body.length}`);
  };
  const limits = { workers: 1, maxHeaderBytes, maxRequestLineBytes: 256, maxUnreadInputBytes };
  const server = startServer(handler, limits);
  return { server, release };
}

async function send(port: number, request: string): Promise<RawClient> {
  const client = await RawClient.connect(port);
  client.send(request);
  return client;
}

test("waiting requests: a small one moves to the head buffer, a large chunk is counted up to exactly the limit", async () => {
  const { server, release } = gatedServer(large.length);
  await using _ = server;
  using slow = await send(server.port, "GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().workersBusy === 1, "the worker to be taken");
  using smallClient = await send(server.port, small);
  using largeClient = await send(server.port, large);
  await waitUntil(() => server.stats().queuedRequests === 2, "both requests to wait");
  const unreadWhileWaiting = server.stats().unreadInputBytes;
  release();
  const answers = await Promise.all(
    [slow, smallClient, largeClient].map(async (client) => (await client.response()).text),
  );
  expect({ unreadWhileWaiting, answers, unreadAfter: server.stats().unreadInputBytes }).toEqual({
    unreadWhileWaiting: large.length,
    answers: ["/slow 0", "/up 5", `/up ${largeBody.length}`],
    unreadAfter: 0,
  });
});

test("a waiting request whose chunk would pass maxUnreadInputBytes by one byte is answered 503 at once", async () => {
  const { server, release } = gatedServer(large.length - 1);
  await using _ = server;
  using slow = await send(server.port, "GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().workersBusy === 1, "the worker to be taken");
  using largeClient = await send(server.port, large);
  const refused = await largeClient.response();
  release();
  expect({
    status: refused.status,
    retryAfter: refused.header("retry-after"),
    slow: (await slow.response()).text,
    unread: server.stats().unreadInputBytes,
  }).toEqual({ status: 503, retryAfter: "1", slow: "/slow 0", unread: 0 });
});
