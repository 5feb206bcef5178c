import { expect, test } from "bun:test";
import {
  App,
  EventChannel,
  listenersWokenPerTurn,
  ManualIo,
  middleware,
  Notifier,
  RedisUnavailableError,
  type RequestOutcome,
  type StreamWriter,
  serverSentEvents,
} from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

/** A producer with an append-only list of events and a notifier for waiting streams. */
function createProducer(capacity: number) {
  const events: string[] = [];
  const notifier = new Notifier({ capacity });
  return {
    events,
    notifier,
    publish(event: string) {
      events.push(event);
      notifier.notify();
    },
  };
}

/** Opens `count` connections, each asking for `/events`. */
async function openStreams(port: number, count: number): Promise<RawClient[]> {
  const clients: RawClient[] = [];
  for (let index = 0; index < count; index++) {
    const client = await RawClient.connect(port);
    client.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n");
    clients.push(client);
  }
  return clients;
}

test("1,000 continuation streams on 4 workers each receive every notification; others are still served", async () => {
  const producer = createProducer(1000);
  const total = 5;
  const counts = { steps: 0, before: 0, cleanups: 0 };
  const app = new App({ shared: producer, limits: { workers: 4 } }).use(
    middleware({
      before() {
        counts.before++;
      },
    }),
  );
  app.continuation("GET", "/events", {
    contentType: "text/plain; charset=utf-8",
    notifier: producer.notifier,
    state: () => ({ cursor: 0 }),
    async step(ctx, state, writer) {
      counts.steps++;
      while (state.cursor < ctx.shared.events.length) {
        await writer.writeAll(`${ctx.shared.events[state.cursor++]}\n`);
      }
      return state.cursor >= total ? "finish" : "wait";
    },
    cleanup() {
      counts.cleanups++;
    },
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  const clients = await openStreams(server.port, 1000);
  await waitUntil(() => producer.notifier.size === 1000, "1,000 waiting streams", 20_000);
  expect(server.stats().workersBusy).toBe(0);
  for (let event = 1; event <= total; event++) {
    producer.publish(`event ${event}`);
    using ping = await RawClient.connect(server.port);
    ping.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    expect((await ping.response()).text).toBe("pong");
  }
  const expected = "event 1\nevent 2\nevent 3\nevent 4\nevent 5\n";
  const bodies = await Promise.all(
    clients.map(async (client) => (await client.response(20_000)).text),
  );
  expect(bodies.filter((body) => body === expected).length).toBe(1000);
  expect(server.stats().peakWorkersBusy).toBeLessThanOrEqual(4);
  expect(counts.before).toBe(1000 + total);
  await waitUntil(() => counts.cleanups === 1000, "every cleanup");
  expect(producer.notifier.size).toBe(0);
  for (const client of clients) client.destroy();
  await app.stop();
}, 60_000);

test("cleanup runs exactly once on completion, on disconnect and on the stream deadline", async () => {
  const producer = createProducer(10);
  const cleanups: string[] = [];
  const app = new App({ shared: {}, limits: { streamDeadlineMs: 100, sweepIntervalMs: 5 } });
  app.continuation("GET", "/c/:mode", {
    contentType: "text/plain",
    notifier: producer.notifier,
    state: (ctx) => ({ mode: ctx.params.mode, steps: 0 }),
    step(_ctx, state, writer) {
      state.steps++;
      if (state.mode === "finish") return "finish";
      return writer.writeAll(`step ${state.steps}\n`).then(() => "wait" as const);
    },
    cleanup(state, outcome: RequestOutcome) {
      cleanups.push(`${state.mode}:${outcome}`);
    },
  });
  const server = listenQuietly(app);
  using finished = await RawClient.connect(server.port);
  finished.send("GET /c/finish HTTP/1.1\r\nHost: h\r\n\r\n");
  await finished.response();
  const leaving = await RawClient.connect(server.port);
  leaving.send("GET /c/leave HTTP/1.1\r\nHost: h\r\n\r\n");
  await leaving.waitFor(() => leaving.receivedText.includes("step 1"), "the first step");
  leaving.destroy();
  await waitUntil(() => cleanups.length === 2, "the disconnect cleanup");
  using timed = await RawClient.connect(server.port);
  timed.send("GET /c/deadline HTTP/1.1\r\nHost: h\r\n\r\n");
  await timed.waitForClose();
  await waitUntil(() => cleanups.length === 3, "the deadline cleanup");
  await Bun.sleep(20);
  expect(cleanups).toEqual(["finish:success", "leave:aborted", "deadline:aborted"]);
  expect(server.stats().workersBusy).toBe(0);
  await app.stop();
});

test("timers wake waiting steps on the Io clock; resume() can end the stream; a full notifier is a 503", async () => {
  const io = new ManualIo();
  const notifier = new Notifier({ capacity: 1 });
  const session = { valid: true };
  const resumes: number[] = [];
  const app = new App({ shared: session, io });
  app.continuation("GET", "/tick", {
    contentType: "text/plain",
    notifier,
    wakeAfterMs: 1000,
    state: () => ({ ticks: 0 }),
    async step(_ctx, state, writer) {
      await writer.writeAll(`tick ${state.ticks++}\n`);
      return "wait" as const;
    },
    resume(ctx, state) {
      resumes.push(state.ticks);
      return ctx.shared.valid;
    },
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /tick HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitFor(() => client.receivedText.includes("tick 0"), "tick 0");
  using refused = await RawClient.connect(server.port);
  refused.send("GET /tick HTTP/1.1\r\nHost: h\r\n\r\n");
  const busy = await refused.response();
  expect([busy.status, busy.header("retry-after")]).toEqual([503, "1"]);
  await waitUntil(() => io.pendingTimers === 1, "the wait timer");
  io.advance(1000);
  await client.waitFor(() => client.receivedText.includes("tick 1"), "tick 1");
  session.valid = false;
  await waitUntil(() => io.pendingTimers === 1, "the next wait timer");
  io.advance(1000);
  const response = await client.response();
  expect([response.text, resumes]).toEqual(["tick 0\ntick 1\n", [1, 2]]);
  await app.stop();
});

test("a resume() that meets a Redis outage skips the step and waits: the stream stays open and goes on after it", async () => {
  const io = new ManualIo();
  const store = { down: false, valid: true };
  const resumes: string[] = [];
  const outcomes: RequestOutcome[] = [];
  const app = new App({ shared: store, io });
  app.continuation("GET", "/tick", {
    contentType: "text/plain",
    wakeAfterMs: 1000,
    state: () => ({ ticks: 0 }),
    async step(_ctx, state, writer) {
      await writer.writeAll(`tick ${state.ticks++}\n`);
      return "wait" as const;
    },
    resume(ctx) {
      resumes.push(ctx.shared.down ? "down" : "up");
      if (ctx.shared.down) throw new RedisUnavailableError("disconnected", "test outage");
      return ctx.shared.valid;
    },
    cleanup: (_state, outcome) => void outcomes.push(outcome),
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /tick HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitFor(() => client.receivedText.includes("tick 0"), "tick 0");
  // One wake on the Io clock: its timer armed, fired, and the resume check made.
  const wake = async () => {
    await waitUntil(() => io.pendingTimers === 1, "the wait timer");
    const checks = resumes.length;
    io.advance(1000);
    await waitUntil(() => resumes.length > checks, "the resume check");
  };
  store.down = true;
  for (let index = 0; index < 3; index++) await wake();
  expect(client.receivedText.includes("tick 1")).toBe(false);
  store.down = false;
  await wake();
  await client.waitFor(() => client.receivedText.includes("tick 1"), "tick 1");
  store.valid = false;
  await wake();
  const response = await client.response();
  expect([response.status, response.text, resumes, outcomes, app.stats().handlerFailures]).toEqual([
    200,
    "tick 0\ntick 1\n",
    ["down", "down", "down", "up", "up"],
    ["success"],
    0,
  ]);
  await app.stop();
});

test("inline mode keeps the worker while waiting; pooled mode gives it back", async () => {
  const producer = createProducer(10);
  const app = new App({ shared: producer, limits: { workers: 2 } });
  for (const mode of ["inline", "pooled"] as const) {
    app.continuation("GET", `/${mode}`, {
      contentType: "text/plain",
      notifier: producer.notifier,
      mode,
      state: () => ({ cursor: 0 }),
      async step(ctx, state, writer) {
        while (state.cursor < ctx.shared.events.length) {
          await writer.writeAll(`${ctx.shared.events[state.cursor++]}\n`);
        }
        return state.cursor >= 1 ? ("finish" as const) : ("wait" as const);
      },
    });
  }
  const server = listenQuietly(app);
  using inline = await RawClient.connect(server.port);
  inline.send("GET /inline HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => producer.notifier.size === 1, "the inline stream to wait");
  await waitUntil(() => server.stats().workersBusy === 1, "the inline stream to hold its worker");
  using pooled = await RawClient.connect(server.port);
  pooled.send("GET /pooled HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => producer.notifier.size === 2, "the pooled stream to wait");
  await Bun.sleep(20);
  expect(server.stats().workersBusy).toBe(1);
  producer.publish("news");
  const [inlineText, pooledText] = await Promise.all([
    inline.response().then((response) => response.text),
    pooled.response().then((response) => response.text),
  ]);
  expect([inlineText, pooledText]).toEqual(["news\n", "news\n"]);
  await waitUntil(() => server.stats().workersBusy === 0, "both workers back");
  await app.stop();
});

test("noContent answers 204 without a stream: headers from state() kept, cleanup runs, the notifier is freed", async () => {
  const notifier = new Notifier({ capacity: 1 });
  const cleanups: string[] = [];
  const app = new App({ shared: {} });
  app.continuation("GET", "/events/:kind", {
    contentType: "text/event-stream",
    notifier,
    state: (ctx) => {
      ctx.response.header("Cache-Control", "no-cache");
      return { done: ctx.params.kind === "done" };
    },
    noContent: (state) => state.done,
    step: () => "finish" as const,
    cleanup: (state, outcome) => cleanups.push(`${state.done} ${outcome}`),
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /events/done HTTP/1.1\r\nHost: h\r\n\r\nGET /events/open HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const [done, open] = await client.responses(2);
  expect({
    done: done!.headers.filter(([name]) => name !== "date"),
    open: [open!.status, open!.header("transfer-encoding")],
    cleanups,
    notifierSize: notifier.size,
  }).toEqual({
    done: [["cache-control", "no-cache"]],
    open: [200, "chunked"],
    cleanups: ["true success", "false success"],
    notifierSize: 0,
  });
  expect(done!.statusLine).toBe("HTTP/1.1 204 No Content");
  await app.stop();
});

test("HEAD gets the stream's head and ends: the connection goes on, and HEADs never fill the notifier", async () => {
  const producer = createProducer(2);
  const app = new App({ shared: producer });
  app.continuation("GET", "/events", {
    contentType: "text/event-stream; charset=utf-8",
    notifier: producer.notifier,
    state: () => ({ sent: 0 }),
    async step(_ctx, state, writer) {
      await writer.writeAll(`data: ${++state.sent}\n\n`);
      return "wait" as const;
    },
  });
  app.route("GET", "/ping", (ctx) => ctx.response.text(200, "pong"));
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  for (let index = 0; index < 5; index++) {
    client.send("HEAD /events HTTP/1.1\r\nHost: h\r\n\r\n");
    await client.waitFor(
      () => client.receivedText.split("HTTP/1.1 200 OK").length === index + 2,
      "the HEAD's head",
    );
  }
  client.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitFor(
    () => client.receivedText.endsWith("pong"),
    "the ping on the same connection",
  );
  expect(client.receivedText).toContain("Content-Type: text/event-stream; charset=utf-8\r\n");
  expect(client.receivedText).not.toContain("data:");
  expect(producer.notifier.size).toBe(0);
  using listener = await RawClient.connect(server.port);
  listener.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n");
  await listener.waitFor(() => listener.receivedText.includes("data: 1"), "a GET's first event");
  await app.stop({ graceMs: 100 });
});

test("a cleanup that throws is logged and counted, on disconnect too, and never hides the step's error", async () => {
  const logged: string[] = [];
  const app = new App({
    shared: {},
    log: { error: (line: unknown, error: unknown) => logged.push(`${line} ${error}`) },
  });
  const notifier = new Notifier({ capacity: 4 });
  app.continuation("GET", "/:how", {
    contentType: "text/plain",
    notifier,
    state: (ctx) => ({ how: ctx.params.how }),
    async step(_ctx, state, writer) {
      await writer.writeAll("started\n");
      if (state.how === "fails") {
        await writer.flush();
        throw new RangeError("the step broke");
      }
      return "wait" as const;
    },
    cleanup(state, outcome) {
      throw new Error(`cleanup of ${state.how} broke (${outcome})`);
    },
  });
  const server = listenQuietly(app);
  const leaving = await RawClient.connect(server.port);
  leaving.send("GET /leaves HTTP/1.1\r\nHost: h\r\n\r\n");
  await leaving.waitFor(() => leaving.receivedText.includes("started"), "the first step");
  leaving.destroy();
  using failing = await RawClient.connect(server.port);
  failing.send("GET /fails HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => logged.length === 3, "three reports");
  expect(logged.sort()).toEqual([
    "corral: GET /fails: a cleanup hook failed; the answer was decided already: Error: cleanup of fails broke (error)",
    "corral: GET /fails: the handler failed after its stream's headers were sent; the stream is aborted: RangeError: the step broke",
    "corral: GET /leaves: a cleanup hook failed; the answer was decided already: Error: cleanup of leaves broke (aborted)",
  ]);
  expect(app.stats().handlerFailures).toBe(3);
  await app.stop({ graceMs: 100 });
});

test("a continuation's options and serverSentEvents' are checked at registration", () => {
  const app = new App({ shared: {} });
  const base = { contentType: "text/plain", state: () => ({}), step: () => "finish" as const };
  const refusals: [object, string][] = [
    [{ ...base, wakeAfterMs: 0 }, "wakeAfterMs must be a whole number of milliseconds >= 1, got 0"],
    [{ ...base, wakeAfterMs: Number.NaN }, "got NaN"],
    [{ ...base, status: 99 }, "a continuation's status must be from 200 to 599, got 99"],
    [{ ...base, status: 204 }, "a continuation streams content, which a 204 cannot have"],
    [{ ...base, status: 205 }, "which a 205 cannot have"],
    [{ ...base, status: 304 }, "which a 304 cannot have"],
    [{ ...base, mode: "eager" }, 'a continuation\'s mode is "pooled" or "inline", got eager'],
    [{ ...base, cleanup: "no" }, "continuation option cleanup must be a function"],
    [{ contentType: "text/plain", state: () => ({}) }, "needs state() and step() functions"],
  ];
  for (const [spec, message] of refusals) {
    expect(() => app.continuation("GET", "/x", spec as never)).toThrow(message);
  }
  const channel = new EventChannel({ replayCapacity: 4, maxSubscribers: 4 });
  for (const [options, message] of [
    [{ heartbeatMs: 0 }, "heartbeatMs must be a whole number >= 1, got 0"],
    [{ heartbeatMs: -1 }, "got -1"],
    [{ maxEventsPerStep: 0 }, "maxEventsPerStep must be a whole number >= 1, got 0"],
  ] as const) {
    expect(() => serverSentEvents(channel, options)).toThrow(message);
  }
  expect(() => serverSentEvents(channel, { heartbeatMs: 1, maxEventsPerStep: 1 })).not.toThrow();
});

test("a publish to 1,000 waiting streams wakes 64 a turn: a request that comes meanwhile is answered before the last has stepped", async () => {
  expect(listenersWokenPerTurn).toBe(64);
  const producer = createProducer(1000);
  let steps = 0;
  const app = new App({ shared: producer, limits: { workers: 4 } });
  app.continuation("GET", "/events", {
    contentType: "text/plain; charset=utf-8",
    notifier: producer.notifier,
    state: () => ({ cursor: 0 }),
    async step(ctx, state, writer) {
      steps++;
      while (state.cursor < ctx.shared.events.length) {
        await writer.writeAll(`${ctx.shared.events[state.cursor++]}\n`);
      }
      return "wait" as const;
    },
  });
  app.route("GET", "/side", (ctx) => ctx.response.text(200, `after ${steps} steps`));
  const server = listenQuietly(app);
  const clients = await openStreams(server.port, 1000);
  await waitUntil(() => producer.notifier.size === 1000 && steps === 1000, "1,000 waiting streams");
  using side = await RawClient.connect(server.port);
  producer.publish("news");
  side.send("GET /side HTTP/1.1\r\nHost: h\r\n\r\n");
  const stepsBeforeSide = Number((await side.response()).text.split(" ")[1]) - 1000;
  expect(stepsBeforeSide).toBeLessThan(1000);
  await waitUntil(() => steps === 2000, "every stream's step for the news");
  for (const client of clients) client.destroy();
  await app.stop({ graceMs: 100 });
});

test("streams catching up (thousands of flush steps) take turns with other routes: a side request is served before they end", async () => {
  // A "flush" step kept its worker to the stream's end: streams replaying a long backlog held
  // every worker and a request of another route waited for a whole replay (the reviewer's 32
  // streams on 8 workers: 3 s). Three streams on two workers: one always waits to take a worker
  // back, and handlers taking theirs back went ahead of every new request, whatever its route.
  const stepsPerStream = 2000;
  const steps = { done: 0, atPing: -1 };
  const app = new App({ shared: {}, limits: { workers: 2 } });
  app.continuation("GET", "/replay", {
    contentType: "text/plain; charset=utf-8",
    state: () => ({ sent: 0 }),
    async step(_ctx, state, writer) {
      steps.done++;
      await writer.writeAll(`event ${state.sent}\n`);
      return ++state.sent < stepsPerStream ? "flush" : "finish";
    },
  });
  app.route("GET", "/ping", (ctx) => {
    steps.atPing = steps.done;
    ctx.response.text(200, "pong");
  });
  const server = listenQuietly(app);
  const streams: RawClient[] = [];
  for (let index = 0; index < 3; index++) streams.push(await RawClient.connect(server.port));
  using side = await RawClient.connect(server.port);
  try {
    for (const stream of streams) stream.send("GET /replay HTTP/1.1\r\nHost: h\r\n\r\n");
    await waitUntil(() => steps.done >= 30, "the streams to be replaying");
    side.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    const ping = await side.response();
    const answers = await Promise.all(streams.map((stream) => stream.response()));
    expect({
      ping: `${ping.status} ${ping.text}`,
      pingedDuringTheReplays: steps.atPing < stepsPerStream,
      replays: answers.map((answer) => answer.text.split("\n").length - 1),
    }).toEqual({
      ping: "200 pong",
      pingedDuringTheReplays: true,
      replays: [stepsPerStream, stepsPerStream, stepsPerStream],
    });
  } finally {
    for (const stream of streams) stream.destroy();
    await app.stop();
  }
});

test("a HEAD is answered with the stream's head while the notifier is full; a step's wrong result is a clear error", async () => {
  const logged: string[] = [];
  const app = new App({
    shared: {},
    log: { error: (...values: unknown[]) => logged.push(values.map(String).join(" ")) },
  });
  const producer = createProducer(1);
  app.continuation("GET", "/events", {
    contentType: "text/plain",
    notifier: producer.notifier,
    state: () => ({}),
    async step(_ctx, _state, writer) {
      await writer.writeAll(`${producer.events.length}\n`);
      return "wait" as const;
    },
  });
  app.continuation("GET", "/forgot", {
    contentType: "text/plain",
    mode: "inline",
    state: () => ({}),
    // A forgotten return: undefined is no StepResult, and the stream must not hang on it.
    step: async (_ctx: unknown, _state: unknown, writer: StreamWriter) => {
      await writer.writeAll("x");
    },
  } as never);
  const server = listenQuietly(app);
  using listener = await RawClient.connect(server.port);
  listener.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => producer.notifier.size === 1, "the notifier to be full");
  using head = await RawClient.connect(server.port);
  head.send("HEAD /events HTTP/1.1\r\nHost: h\r\n\r\n");
  await head.waitFor(() => head.receivedText.includes("\r\n\r\n"), "the HEAD's answer");
  expect(head.receivedText.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
  using forgot = await RawClient.connect(server.port);
  forgot.send("GET /forgot HTTP/1.1\r\nHost: h\r\n\r\n");
  // Nothing was flushed yet: the error is answered, a 500 (it waited for good before).
  expect((await forgot.response()).status).toBe(500);
  await waitUntil(() => logged.length === 1, "the report");
  expect(logged[0]).toContain(
    'TypeError: corral: a continuation step returns "flush", "wait" or "finish", got undefined',
  );
  await app.stop({ graceMs: 100 });
});
