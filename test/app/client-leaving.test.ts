import { expect, test } from "bun:test";
import { App, EventChannel, middleware, type RequestOutcome, serverSentEvents } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

test("an SSE client leaving (FIN or close) is an ordinary aborted outcome: not logged, not counted", async () => {
  const logged: unknown[] = [];
  const outcomes: RequestOutcome[] = [];
  const app = new App({ shared: {}, log: { error: (line) => logged.push(line) } }).use(
    middleware({ cleanup: (_ctx, outcome) => void outcomes.push(outcome) }),
  );
  app.get("/stream", async (ctx) => {
    const writer = ctx.response.stream(200, "text/event-stream").writer();
    for (;;) {
      await writer.writeAll("data: tick\n\n");
      await writer.flush();
      await ctx.sleep(5);
    }
  });
  app.get("/sleeping", (ctx) => ctx.sleep(60_000));
  const channel = new EventChannel<number>({ replayCapacity: 8, maxSubscribers: 4 });
  app.continuation("GET", "/events", serverSentEvents(channel, { heartbeatMs: 5 }));
  app.get("/broken", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("part");
    await writer.flush();
    throw new Error("broken mid-stream");
  });
  const server = listenQuietly(app);
  const cases: Array<[string, "end" | "destroy"]> = [
    ["/stream", "end"],
    ["/stream", "destroy"],
    ["/events", "end"],
    ["/events", "destroy"],
    ["/sleeping", "end"],
  ];
  for (const [path, leave] of cases) {
    using client = await RawClient.connect(server.port);
    const before = outcomes.length;
    client.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
    if (path !== "/sleeping") {
      await client.waitFor(() => client.receivedText.includes("\r\n\r\n"), "the stream's head");
    } else {
      await waitUntil(() => app.stats().requests > before, "the request to start");
    }
    if (leave === "end") client.end();
    else client.destroy();
    await waitUntil(() => outcomes.length === before + 1, `the cleanup of ${path}`);
  }
  expect({ outcomes, logged, failures: app.stats().handlerFailures }).toEqual({
    outcomes: ["aborted", "aborted", "aborted", "aborted", "aborted"],
    logged: [],
    failures: 0,
  });
  // A real failure mid-stream is still counted and logged: the count is corrected, not off.
  const broken = await fetch(`http://127.0.0.1:${server.port}/broken`);
  await broken.text().catch(() => {});
  await waitUntil(() => outcomes.length === cases.length + 1, "the broken stream's cleanup");
  expect([outcomes.at(-1), logged.length, app.stats().handlerFailures]).toEqual(["error", 1, 1]);
  await app.stop();
});
