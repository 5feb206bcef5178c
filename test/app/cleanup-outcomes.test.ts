import { expect, test } from "bun:test";
import { App, middleware, Notifier } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { recordOutcomes } from "../support/outcome-recorder.ts";

/** An App whose middleware records `path outcome` from its cleanup hook. */
function recordingApp(outcomes: string[], limits = {}) {
  return new App({ shared: {}, limits, log: null }).use(recordOutcomes(outcomes));
}

test("cleanup sees success for streams and continuations that finished, error for a throw", async () => {
  const outcomes: string[] = [];
  const app = recordingApp(outcomes);
  app.route("GET", "/finished", async (ctx) => {
    const stream = ctx.response.stream(200, "text/plain");
    await stream.writer().writeAll("finished");
    await stream.finish();
  });
  app.route("GET", "/returned", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("returned");
    await writer.flush();
  });
  app.route("GET", "/thrown", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("thrown");
    await writer.flush();
    throw new Error("broke mid-stream");
  });
  app.continuation("GET", "/continued", {
    contentType: "text/plain",
    notifier: new Notifier({ capacity: 4 }),
    state: () => ({ steps: 0 }),
    async step(_ctx, state, writer) {
      await writer.writeAll(`step ${++state.steps}\n`);
      return state.steps === 2 ? ("finish" as const) : ("flush" as const);
    },
  });
  const server = listenQuietly(app);
  const bodies: string[] = [];
  for (const path of ["/finished", "/returned", "/continued"]) {
    using client = await RawClient.connect(server.port);
    client.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
    bodies.push((await client.response()).text);
    await waitUntil(() => outcomes.at(-1)?.startsWith(path) === true, `${path} cleanup`);
  }
  // HTTP/1.0 and Connection: close end the connection right after the stream's last bytes.
  for (const request of [
    "GET /finished HTTP/1.0\r\n\r\n",
    "GET /returned HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
  ]) {
    using client = await RawClient.connect(server.port);
    client.send(request);
    await client.waitForClose();
    await waitUntil(() => outcomes.length === bodies.length + 1, "the closing request's cleanup");
    const text = client.receivedText;
    bodies.push(text.slice(text.indexOf("\r\n\r\n") + 4).replace(/\r\n/g, "|"));
  }
  using thrown = await RawClient.connect(server.port);
  thrown.send("GET /thrown HTTP/1.1\r\nHost: h\r\n\r\n");
  await thrown.waitForClose();
  await waitUntil(() => outcomes.length === 6, "the thrown stream's cleanup");
  expect({ bodies, outcomes }).toEqual({
    bodies: ["finished", "returned", "step 1\nstep 2\n", "finished", "8|returned|0||"],
    outcomes: [
      "/finished success",
      "/returned success",
      "/continued success",
      "/finished success",
      "/returned success",
      "/thrown error",
    ],
  });
  await app.stop();
});

test("cleanup sees aborted only for a disconnect or a deadline, also once a stream has started", async () => {
  const outcomes: string[] = [];
  const app = recordingApp(outcomes, { streamDeadlineMs: 100, sweepIntervalMs: 5 });
  let started = 0;
  app.route("GET", "/:name", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("waiting\n");
    await writer.flush();
    started++;
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
    await writer.writeAll("never sent");
  });
  const server = listenQuietly(app);
  const leaving = await RawClient.connect(server.port);
  leaving.send("GET /left HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => started === 1, "the stream to start");
  leaving.destroy();
  await waitUntil(() => outcomes.length === 1, "the disconnect's cleanup");
  using timed = await RawClient.connect(server.port);
  timed.send("GET /deadline HTTP/1.1\r\nHost: h\r\n\r\n");
  await timed.waitForClose();
  await waitUntil(() => outcomes.length === 2, "the deadline's cleanup");
  expect(outcomes).toEqual(["/left aborted", "/deadline aborted"]);
  await app.stop();
});

test("a cleanup hook that throws is logged and counted; the answer stands and the other cleanups run", async () => {
  const logged: string[] = [];
  const ran: string[] = [];
  const app = new App({
    shared: {},
    log: { error: (line: unknown, error: unknown) => logged.push(`${line} ${error}`) },
  })
    .use(middleware({ cleanup: (_ctx, outcome) => void ran.push(`outer ${outcome}`) }))
    .use(
      middleware({
        cleanup() {
          throw new Error("could not give the connection back");
        },
      }),
    );
  app.route("GET", "/hello", (ctx) => ctx.response.text(200, "hello"));
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n");
  const response = await client.response();
  expect([response.statusLine, response.text]).toEqual(["HTTP/1.1 200 OK", "hello"]);
  await waitUntil(() => ran.length === 1, "the outer cleanup");
  expect(ran).toEqual(["outer success"]);
  expect(logged).toEqual([
    "corral: GET /hello: a cleanup hook failed; the answer was decided already: Error: could not give the connection back",
  ]);
  expect(app.stats().handlerFailures).toBe(1);
  await app.stop();
});
