import { expect, test } from "bun:test";
import { App, EventChannel, middleware, type RequestOutcome, serverSentEvents } from "corral";
import { waitUntil } from "../../engine/test/support/test-server.ts";

const decoder = new TextDecoder();

/** The next chunk of a body as text, or "(end)". */
async function readChunk(reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> }) {
  const { done, value } = await reader.read();
  return done ? "(end)" : decoder.decode(value);
}

/**
 * An App whose GET / (after streaming and flushing "first" when `flushFirst`) waits for its
 * signal; `waiting` resolves once it waits, and `seen` records the signal and cleanup outcomes.
 */
function createWaitingApp(flushFirst: boolean) {
  const seen = { outcomes: [] as RequestOutcome[], signalFired: false };
  const waiting = Promise.withResolvers<void>();
  const app = new App({ shared: {} }).use(
    middleware({ cleanup: (_ctx, outcome) => seen.outcomes.push(outcome) }),
  );
  app.route("GET", "/", async (ctx) => {
    if (flushFirst) {
      const writer = ctx.response.stream(200, "text/plain").writer();
      await writer.writeAll("first");
      await writer.flush();
    }
    const fired = new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
    waiting.resolve();
    await fired;
    seen.signalFired = true;
  });
  return { app, seen, waiting: waiting.promise };
}

test("the body yields each flushed chunk as it is flushed, while the handler still runs", async () => {
  const gate = Promise.withResolvers<void>();
  const app = new App({ shared: {} });
  app.route("GET", "/", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("first");
    await writer.flush();
    await gate.promise;
    await writer.writeAll("second");
    await writer.flush();
  });
  const response = await app.request("/");
  const reader = response.body!.getReader();
  const first = await readChunk(reader);
  gate.resolve();
  expect([first, await readChunk(reader), await readChunk(reader)]).toEqual([
    "first",
    "second",
    "(end)",
  ]);
  await app.stop();
});

test("an SSE route can be tested in process: events arrive as they are published", async () => {
  const channel = new EventChannel<{ step: number }>({ replayCapacity: 8, maxSubscribers: 4 });
  const app = new App({ shared: {} });
  app.continuation(
    "GET",
    "/events",
    serverSentEvents(channel, { isLast: (payload) => payload.step === 2 }),
  );
  const response = await app.request("/events");
  const reader = response.body!.getReader();
  await waitUntil(() => channel.subscribers === 1, "the stream to wait");
  channel.publish({ step: 1 });
  const first = await readChunk(reader);
  channel.publish({ step: 2 });
  expect([
    response.headers.get("content-type"),
    first,
    await readChunk(reader),
    await readChunk(reader),
  ]).toEqual([
    "text/event-stream; charset=utf-8",
    'id: 1\ndata: {"step":1}\n\n',
    'id: 2\ndata: {"step":2}\n\n',
    "(end)",
  ]);
  await app.stop();
});

test("init.signal aborting mid-stream is a disconnect: ctx.signal fires, cleanup gets aborted", async () => {
  const { app, seen } = createWaitingApp(true);
  const controller = new AbortController();
  const response = await app.request("/", { signal: controller.signal });
  const reader = response.body!.getReader();
  const first = await readChunk(reader);
  controller.abort();
  const error = await reader.read().catch((reason: Error) => reason.name);
  await waitUntil(() => seen.outcomes.length === 1, "the cleanup");
  expect([first, error, seen]).toEqual([
    "first",
    "AbortError",
    { outcomes: ["aborted"], signalFired: true },
  ]);
  await app.stop();
});

test("init.signal aborting before the head rejects the request and fires ctx.signal", async () => {
  const { app, seen, waiting } = createWaitingApp(false);
  const controller = new AbortController();
  const request = app.request("/", { signal: controller.signal });
  await waiting;
  controller.abort();
  const error = await request.catch((reason: Error) => reason.name);
  await waitUntil(() => seen.outcomes.length === 1, "the cleanup");
  const aborted = await app.request("/", { signal: AbortSignal.abort() }).catch(String);
  expect([error, seen, aborted]).toEqual([
    "AbortError",
    { outcomes: ["aborted"], signalFired: true },
    "AbortError: The operation was aborted.",
  ]);
  await app.stop();
});

test("cancelling the body is a disconnect too", async () => {
  const { app, seen } = createWaitingApp(true);
  const response = await app.request("/");
  await response.body!.cancel();
  await waitUntil(() => seen.outcomes.length === 1, "the cleanup");
  expect(seen).toEqual({ outcomes: ["aborted"], signalFired: true });
  await app.stop();
});

test("after stop() a request rejects with a clear error, whether or not the App served", async () => {
  const served = new App({ shared: {} });
  served.route("GET", "/", (ctx) => ctx.response.text(200, "ok"));
  const before = await (await served.request("/")).text();
  await served.stop();
  const neverServed = new App({ shared: {} });
  await neverServed.stop();
  const message = "corral: app.request() after app.stop(): the App is stopped";
  expect([
    before,
    await served.request("/").catch((error: Error) => error.message),
    await neverServed.request("/").catch((error: Error) => error.message),
  ]).toEqual(["ok", message, message]);
});

test("app.request() sends the method as given, as the wire carries it: FOO is a 501 and patch is not PATCH; a method that is no token is a TypeError", async () => {
  // Bun's Request turns an unknown method into GET: FOO ran the GET handler (200) where a client
  // on the wire got a 501, and "patch" became PATCH.
  const app = new App({ shared: {} });
  app.route("GET", "/x", (ctx) => ctx.response.text(200, "get"));
  app.route("PATCH", "/x", (ctx) => ctx.response.text(200, "patch"));
  const statuses: string[] = [];
  for (const method of ["FOO", "patch", "PATCH", "get", "propfind", "PROPFIND"]) {
    const response = await app.request("/x", { method });
    statuses.push(
      `${method} ${response.status} ${response.status === 200 ? await response.text() : ""}`,
    );
  }
  expect(statuses).toEqual([
    "FOO 501 ",
    "patch 501 ",
    "PATCH 200 patch",
    "get 200 get",
    "propfind 501 ",
    "PROPFIND 501 ",
  ]);
  expect(() => app.request("/x", { method: "bad method" })).toThrow(
    new TypeError('corral: app.request() method must be a token, got "bad method"'),
  );
  await app.stop();
});

test("app.request() past the last connection slot answers the canned 503 with Retry-After, as the wire does", async () => {
  // It threw "found every connection slot taken" where a client would have had a 503.
  const gate = Promise.withResolvers<void>();
  const app = new App({ shared: {}, limits: { maxConnections: 2, workers: 2 } });
  app.route("GET", "/wait", async (ctx) => {
    await gate.promise;
    ctx.response.text(200, "waited");
  });
  const waiting = [app.request("/wait"), app.request("/wait")];
  const refused = await app.request("/wait");
  expect([refused.status, refused.headers.get("retry-after"), await refused.text()]).toEqual([
    503,
    "1",
    "Service Unavailable: too many connections\n",
  ]);
  gate.resolve();
  expect(await Promise.all(waiting.map(async (pending) => (await pending).status))).toEqual([
    200, 200,
  ]);
  await app.stop();
});

test("app.request() with a FormData body sends its multipart Content-Type (Bun drops it once the body is read)", async () => {
  const app = new App({ shared: {} });
  app.route("POST", "/parts", (ctx) => {
    const parts = ctx.request.multipart();
    ctx.response.text(200, parts.map((part) => `${part.name}:${part.filename}`).join(","));
  });
  const form = new FormData();
  form.append("a", new File(["x"], "a.txt"));
  form.append("b", "text");
  const response = await app.request("/parts", { method: "POST", body: form });
  expect([response.status, await response.text()]).toEqual([200, "a:a.txt,b:undefined"]);
  await app.stop();
});
