import { expect, test } from "bun:test";
import { App, Notifier } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { createDemoApp } from "../../examples/demo/demo-app.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

// Clients that never read what they asked for: their output blocks once the kernel's buffers
// are full. Whatever they do, a side client's request must be answered at once.

function nonReaders(port: number, count: number, request: string, repeat: number) {
  return RawClient.nonReaders(port, count, new TextEncoder().encode(request.repeat(repeat)));
}

async function sideRequest(port: number, path: string) {
  using side = await RawClient.connect(port);
  side.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
  return await side.response(3000);
}

test("the demo: 70 non-reading pipeliners of /hello against 64 workers hold no worker; others are served", async () => {
  const app = createDemoApp();
  const server = listenQuietly(app);
  const attackers = await nonReaders(
    server.port,
    70,
    "GET /hello HTTP/1.1\r\nHost: h\r\n\r\n",
    60_000,
  );
  // Each ends blocked, or closed once its pipelining passed `maxUnreadInputBytes` (all 70 of
  // them keep more unread chunks than that): no open connection is still being served.
  await waitUntil(
    () => {
      const { connectionsAccepted, connectionsOpen, blockedConnections } = server.stats();
      return connectionsAccepted === 70 && connectionsOpen === blockedConnections;
    },
    "every attacker blocked or closed",
    15_000,
  );
  const answer = await sideRequest(server.port, "/hello?name=side");
  const stats = server.stats();
  expect({
    status: answer.status,
    body: answer.text,
    held: stats.workersHeldByBlockedOutput,
    busy: stats.workersBusy,
  }).toEqual({ status: 200, body: "side", held: 0, busy: 0 });
  for (const client of attackers) client.destroy();
  await app.stop({ graceMs: 100 });
}, 30_000);

test("continuation subscribers that never read: the stalled longest is closed, others are served", async () => {
  const notifier = new Notifier({ capacity: 16 });
  const event = "x".repeat(60_000);
  let published = 0;
  const app = new App({ shared: {}, limits: { workers: 4 } });
  app.continuation("GET", "/events", {
    contentType: "text/plain; charset=utf-8",
    notifier,
    state: () => ({ sent: 0 }),
    async step(_ctx, state, writer) {
      while (state.sent < published) {
        await writer.writeAll(event);
        state.sent++;
        if (state.sent < published) return "flush" as const;
      }
      return "wait" as const;
    },
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  const subscribers = await nonReaders(
    server.port,
    4,
    "GET /events HTTP/1.1\r\nHost: h\r\n\r\n",
    1,
  );
  await waitUntil(() => notifier.size === 4, "four waiting subscribers");
  const publisher = setInterval(() => {
    published++;
    notifier.notify();
  }, 5);
  try {
    await waitUntil(
      () => server.stats().workersHeldByBlockedOutput === 4,
      "every worker held by a blocked subscriber",
      15_000,
    );
    const answer = await sideRequest(server.port, "/ping");
    expect({ status: answer.status, closed: server.stats().blockedOutputCloses }).toEqual({
      status: 200,
      closed: 1,
    });
  } finally {
    clearInterval(publisher);
    for (const client of subscribers) client.destroy();
    await app.stop({ graceMs: 100 });
  }
}, 30_000);
