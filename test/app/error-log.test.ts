import { afterEach, expect, test } from "bun:test";
import { App, HttpError } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const originalConsoleError = console.error;
afterEach(() => {
  console.error = originalConsoleError;
});

/** Routes failing every way a handler can: each comment says the answer. */
function addFailingRoutes(app: App<object>): void {
  app.route("GET", "/sync", () => {
    throw new Error("sync failure"); // 500
  });
  app.route("GET", "/async", async (ctx) => {
    await ctx.sleep(1);
    throw new Error("async failure"); // 500
  });
  app.route("GET", "/unavailable", () => {
    throw new HttpError(503, "down for a moment"); // 503
  });
  app.route("GET", "/missing", () => {
    throw new HttpError(404, "no such thing"); // 404: the client's mistake, not logged
  });
  app.route("GET", "/mapped", () => {
    throw new RangeError("mapped by onError"); // onError: 422, not logged
  });
  app.route("GET", "/ok", (ctx) => ctx.response.text(200, "ok"));
}

async function requestAll(port: number, paths: readonly string[]) {
  using client = await RawClient.connect(port);
  client.send(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
  return await client.responses(paths.length);
}

test("a handler error answered with a 5xx is logged once with method, path, status and stack; never sent", async () => {
  const logged: unknown[][] = [];
  const app = new App({ shared: {}, log: { error: (...values) => logged.push(values) } });
  addFailingRoutes(app);
  app.onError((error, ctx) => {
    if (error instanceof RangeError) ctx.response.json(422, { error: "unprocessable" });
  });
  const server = listenQuietly(app);
  const paths = ["/sync", "/async", "/unavailable", "/missing", "/mapped", "/ok"];
  const responses = await requestAll(server.port, paths);
  const wire = responses.map((response) => response.text).join("");
  expect({
    statuses: responses.map((response) => response.status),
    lines: logged.map((values) => values[0]),
    errors: logged.map((values) => (values[1] as Error).message),
    stacks: logged.every((values) => (values[1] as Error).stack?.includes("error-log.test.ts")),
    leaked: wire.includes("failure") || wire.includes("error-log.test.ts"),
  }).toEqual({
    statuses: [500, 500, 503, 404, 422, 200],
    lines: [
      "corral: GET /sync answered 500 after an error:",
      "corral: GET /async answered 500 after an error:",
      "corral: GET /unavailable answered 503 after an error:",
    ],
    errors: ["sync failure", "async failure", "down for a moment"],
    stacks: true,
    leaked: false,
  });
  await app.stop();
});

test("the default log is console.error; log: null silences it", async () => {
  const printed: unknown[][] = [];
  console.error = (...values: unknown[]) => void printed.push(values);
  for (const log of [undefined, null]) {
    const app = new App({ shared: {}, ...(log === null ? { log } : {}) });
    addFailingRoutes(app);
    expect((await app.request("/sync")).status).toBe(500);
    await app.stop();
  }
  console.error = originalConsoleError;
  expect(printed.map((values) => [values[0], (values[1] as Error).message])).toEqual([
    ["corral: GET /sync answered 500 after an error:", "sync failure"],
  ]);
});

test("stats().handlerFailures counts exactly the 5xx answers that handler errors caused", async () => {
  const app = new App({ shared: {}, log: null });
  addFailingRoutes(app);
  app.route("GET", "/stream", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("partial");
    await writer.flush();
    throw new Error("broke mid-stream"); // aborted stream: a failure, though its status was 200
  });
  const server = listenQuietly(app);
  const paths = ["/sync", "/async", "/unavailable", "/missing", "/mapped", "/ok"];
  for (let round = 0; round < 4; round++) await requestAll(server.port, paths);
  using streamed = await RawClient.connect(server.port);
  streamed.send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n");
  await streamed.waitForClose();
  await waitUntil(() => server.stats().workersBusy === 0, "every worker back");
  const stats = server.stats();
  expect({
    serverErrors: stats.responses["5xx"],
    handlerFailures: stats.handlerFailures,
    appView: app.stats().handlerFailures,
  }).toEqual({ serverErrors: 16, handlerFailures: 17, appView: 17 });
  await app.stop();
});
