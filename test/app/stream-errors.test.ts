import { expect, test } from "bun:test";
import { App, HttpError, middleware } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

/** Routes that start a stream, write without flushing, then fail in different ways. */
function streamingApp(outcomes: string[]) {
  const app = new App({ shared: {}, log: null }).use(
    middleware({ cleanup: (_ctx, outcome) => void outcomes.push(outcome) }),
  );
  app.route("GET", "/error", async (ctx) => {
    ctx.response.header("X-Draft", "yes");
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("partial");
    throw new Error("failed before the first flush");
  });
  app.route("GET", "/http-error", (ctx) => {
    ctx.response.stream(200, "text/plain");
    throw new HttpError(403, "not yours");
  });
  app.route("GET", "/ok", (ctx) => ctx.response.text(200, "ok"));
  return app;
}

test("a stream handler that throws before its first flush is answered like any other handler", async () => {
  const outcomes: string[] = [];
  const app = streamingApp(outcomes);
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  // Pipelined: the connection stays usable after each error answer.
  client.send(
    ["/error", "/http-error", "/ok"]
      .map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`)
      .join(""),
  );
  const responses = await client.responses(3);
  await waitUntil(() => outcomes.length === 3, "every cleanup");
  expect({
    answers: responses.map((response) => [
      response.statusLine,
      response.header("content-length"),
      response.header("transfer-encoding"),
      response.text,
    ]),
    draftLeaked: client.receivedText.includes("X-Draft") || client.receivedText.includes("partial"),
    outcomes,
  }).toEqual({
    answers: [
      ["HTTP/1.1 500 Internal Server Error", "22", undefined, "Internal Server Error\n"],
      ["HTTP/1.1 403 Forbidden", "10", undefined, "not yours\n"],
      ["HTTP/1.1 200 OK", "2", undefined, "ok"],
    ],
    draftLeaked: false,
    outcomes: ["error", "error", "success"],
  });
  await app.stop();
});

test("an unflushed stream's error goes to onError; its writer is dead afterwards", async () => {
  const outcomes: string[] = [];
  const app = streamingApp(outcomes);
  let lateWrite = "";
  app.route("GET", "/kept", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("partial");
    // The failure is mapped while this write is still to come: it must not reach the answer.
    setTimeout(() => {
      writer.writeAll("late").then(
        () => {
          lateWrite = "written";
        },
        (error: Error) => {
          lateWrite = error.message;
        },
      );
    }, 0);
    throw new RangeError("failed before the first flush");
  });
  let release: () => void = () => {};
  const mapped = new Promise<void>((resolve) => {
    release = resolve;
  });
  app.onError(async (error, ctx) => {
    await mapped;
    ctx.response.json(503, { error: (error as Error).name });
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /kept HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => lateWrite !== "", "the late write");
  release();
  const response = await client.response();
  expect([response.status, response.header("content-type"), response.text, lateWrite]).toEqual([
    503,
    "application/json",
    '{"error":"RangeError"}',
    "corral: this stream was discarded: the handler failed before its first flush",
  ]);
  await app.stop();
});

/** Routes whose stream declares 10 bytes; the handler writes `count` and returns. */
function sizedStreamApp(logged: string[], outcomes: string[], withAfterHook: boolean) {
  const app = new App({
    log: { error: (...values) => logged.push(values.map(String).join(" ")) },
  }).use(
    middleware({
      after: withAfterHook ? () => {} : undefined,
      cleanup: (_ctx, outcome) => void outcomes.push(outcome),
    }),
  );
  app.get("/short", (ctx) => {
    ctx.response.header("X-Draft", "yes");
    ctx.response.stream(200, "text/plain", { contentLength: 10 }).writer().writeAll("abc");
  });
  app.get("/short-flushed", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain", { contentLength: 10 }).writer();
    await writer.writeAll("abc");
    await writer.flush();
  });
  app.get("/whole", async (ctx) => {
    await ctx.response
      .stream(200, "text/plain", { contentLength: 10 })
      .writer()
      .writeAll("0123456789");
  });
  app.get("/ok", (ctx) => ctx.response.text(200, "ok"));
  return app;
}

/** The sized-stream App on a free port and a raw client that sent a GET of each of `paths`. */
async function sizedStreamRequests(withAfterHook: boolean, paths: readonly string[]) {
  const logged: string[] = [];
  const outcomes: string[] = [];
  const app = sizedStreamApp(logged, outcomes, withAfterHook);
  const client = await RawClient.connect(listenQuietly(app).port);
  client.send(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
  return { app, client, logged, outcomes };
}

for (const withAfterHook of [false, true]) {
  const hooks = withAfterHook ? "with an after hook" : "without after hooks";
  test(`a handler returning short of its stream's declared length, before the first flush: 500, logged, the connection goes on (${hooks})`, async () => {
    const { app, logged, outcomes, ...run } = await sizedStreamRequests(withAfterHook, [
      "/short",
      "/whole",
      "/ok",
    ]);
    using client = run.client;
    const responses = await client.responses(3);
    await waitUntil(() => outcomes.length === 3, "every cleanup");
    expect({
      answers: responses.map((response) => [
        response.status,
        response.header("content-length"),
        response.text,
      ]),
      draftLeaked: client.receivedText.includes("X-Draft") || client.receivedText.includes("abc"),
      logged,
      outcomes,
    }).toEqual({
      answers: [
        [500, "22", "Internal Server Error\n"],
        [200, "10", "0123456789"],
        [200, "2", "ok"],
      ],
      draftLeaked: false,
      logged: [
        expect.stringContaining(
          "GET /short answered 500 after an error: TypeError: corral: the handler returned short of its declared length: the stream ends at 3 of its declared 10 bytes",
        ),
      ],
      outcomes: ["error", "success", "success"],
    });
    await app.stop();
  });

  test(`a handler returning short of its stream's declared length after the first flush: logged, the connection closes on a short body (${hooks})`, async () => {
    const { app, logged, outcomes, ...run } = await sizedStreamRequests(withAfterHook, [
      "/short-flushed",
      "/ok",
    ]);
    using client = run.client;
    await client.waitForClose();
    await waitUntil(() => outcomes.length === 1, "the cleanup");
    expect({
      wire: client.receivedText.replace(/Date: [^\r]*\r\n/, ""),
      logged,
      outcomes,
    }).toEqual({
      wire: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nabc",
      logged: [expect.stringContaining("the stream ends at 3 of its declared 10 bytes")],
      outcomes: ["error"],
    });
    await app.stop();
  });
}
