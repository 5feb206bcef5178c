import { afterAll, expect, test } from "bun:test";
import { App, EventChannel, serverSentEvents } from "corral";
import { listenQuietly } from "../support/listen-quietly.ts";

/**
 * The same requests over TCP (with fetch, a real client) and through `app.request()` must give
 * the same status, headers (but Date) and body bytes, including how a body ends: complete, or
 * an error when the stream was aborted.
 */

/** Resolved when a client read the first chunk of a body; renewed for each request. */
let firstChunkRead = Promise.withResolvers<void>();

interface Step {
  readonly step: number;
}

function createApp(): App<Record<string, never>> {
  const channel = new EventChannel<Step>({ replayCapacity: 8, maxSubscribers: 4 });
  for (let step = 1; step <= 3; step++) channel.publish({ step });
  const app = new App({ shared: {}, limits: { maxBodyBytes: 1024 } });
  app.route("GET", "/text", (ctx) => ctx.response.text(200, "hello\n"));
  app.route("GET", "/json", (ctx) => ctx.response.json(200, { name: "corral", list: [1, 2] }));
  app.route("DELETE", "/nothing", (ctx) => ctx.response.setStatus(204));
  app.route("GET", "/stream", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain; charset=utf-8").writer();
    for (let part = 1; part <= 3; part++) {
      await writer.writeAll(`part ${part}\n`);
      await writer.flush();
    }
  });
  app.continuation(
    "GET",
    "/events",
    serverSentEvents(channel, {
      startFrom: "oldest",
      maxEventsPerStep: 1,
      isLast: (payload) => payload.step === 3,
    }),
  );
  app.route("GET", "/aborted", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain; charset=utf-8").writer();
    await writer.writeAll("partial");
    await writer.flush();
    // fetch drops data that arrives together with a reset: the abort waits until it was read.
    await firstChunkRead.promise;
    throw new Error("broke after the first flush");
  });
  app.route("POST", "/echo", (ctx) => {
    const framing = ctx.request.header("transfer-encoding");
    ctx.response.header("X-Framing", framing ?? `length ${ctx.request.header("content-length")}`);
    ctx.response.bytes(200, "application/octet-stream", ctx.request.body);
  });
  return app;
}

function chunkedBody(parts: readonly string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
      controller.close();
    },
  });
}

/** Each case makes its init anew: a body stream can be read once. */
const cases: [name: string, path: string, init: () => RequestInit][] = [
  ["plain text", "/text", () => ({})],
  ["JSON", "/json", () => ({})],
  ["404", "/missing", () => ({})],
  ["405", "/text", () => ({ method: "POST", body: "x" })],
  ["HEAD", "/text", () => ({ method: "HEAD" })],
  ["204", "/nothing", () => ({ method: "DELETE" })],
  ["a stream with several flushes", "/stream", () => ({})],
  ["an SSE continuation that finishes", "/events", () => ({})],
  ["a stream aborted after its first flush", "/aborted", () => ({})],
  [
    "a chunked request body",
    "/echo",
    () => ({ method: "POST", body: chunkedBody(["one,", "two,", "three"]), duplex: "half" }),
  ],
  ["a body over maxBodyBytes: 413", "/echo", () => ({ method: "POST", body: "x".repeat(1025) })],
];

interface Outcome {
  readonly status: number;
  readonly statusText: string;
  readonly headers: string[][];
  readonly body: string;
  readonly bodyEnd: "complete" | "error";
}

async function outcomeOf(response: Response): Promise<Outcome> {
  const chunks: Uint8Array[] = [];
  let bodyEnd: Outcome["bodyEnd"] = "complete";
  if (response.body !== null) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        firstChunkRead.resolve();
      }
    } catch {
      bodyEnd = "error";
    }
  }
  firstChunkRead = Promise.withResolvers<void>();
  return {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers].filter(([name]) => name !== "date").sort(),
    body: Buffer.concat(chunks).toString("latin1"),
    bodyEnd,
  };
}

const wireApp = createApp();
const server = listenQuietly(wireApp);
const memoryApp = createApp();
afterAll(async () => {
  await wireApp.stop();
  await memoryApp.stop();
});

for (const [name, path, init] of cases) {
  test(`in process as over the wire: ${name}`, async () => {
    const overWire = await outcomeOf(await fetch(`http://127.0.0.1:${server.port}${path}`, init()));
    const inProcess = await outcomeOf(await memoryApp.request(path, init()));
    expect(inProcess).toEqual(overWire);
  });
}

test("the cases cover what they claim: statuses, framings and endings", async () => {
  const seen: string[] = [];
  for (const [, path, init] of cases) {
    const response = await memoryApp.request(path, init());
    const outcome = await outcomeOf(response);
    const framing = response.headers.get("transfer-encoding") ?? "-";
    const requestFraming = response.headers.get("x-framing") ?? "";
    seen.push(`${outcome.status} ${framing} ${outcome.bodyEnd} ${requestFraming}`.trim());
  }
  expect(seen).toEqual([
    "200 - complete",
    "200 - complete",
    "404 - complete",
    "405 - complete",
    "200 - complete",
    "204 - complete",
    "200 chunked complete",
    "200 chunked complete",
    "200 chunked error",
    "200 - complete chunked",
    "413 - complete",
  ]);
});
