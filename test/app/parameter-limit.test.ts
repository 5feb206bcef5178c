import { expect, test } from "bun:test";
import { App, defaultRequestViewLimits, ParameterLimitError } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { liveObjects } from "../support/live-objects.ts";

// Issue "No client can deny service to other clients", point 5: the number of query and form
// parameters is bounded by `maxParameters`; exactly at the limit passes, one more is a 400.

const limit = defaultRequestViewLimits.maxParameters;

function parameterApp(limits: { maxParameters?: number } = {}) {
  const app = new App({ shared: {}, limits });
  app.route("GET", "/q", (ctx) => {
    ctx.response.text(200, `${ctx.request.query().length} entries\n`);
  });
  app.route("POST", "/f", (ctx) => {
    ctx.response.text(200, `${ctx.request.form().length} entries\n`);
  });
  app.route("GET", "/v", (ctx) => {
    ctx.response.text(200, `a is ${ctx.request.queryValueRaw("a")}\n`);
  });
  return app;
}

/** `count` entries `a=1`, with empty pieces between them that do not count. */
const entries = (count: number) => `&${Array.from({ length: count }, () => "a=1").join("&&")}&`;

const queryRequest = (query: string) => `GET /q?${query} HTTP/1.1\r\nHost: h\r\n\r\n`;
const formRequest = (body: string) =>
  "POST /f HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
  `Content-Length: ${body.length}\r\n\r\n${body}`;
const summary = (responses: Array<{ status: number; text: string }>) =>
  responses.map(({ status, text }) => [status, text]);

test("the default maxParameters is 1000", () => {
  expect(limit).toBe(1000);
});

test.each([
  ["query", queryRequest],
  ["form", formRequest],
])(
  "a %s of exactly maxParameters entries is served, one more is a 400",
  async (source, request) => {
    const app = parameterApp();
    const server = listenQuietly(app);
    using client = await RawClient.connect(server.port);
    // The connection stays usable: the 400 is the App's answer, not a framing error.
    client.send(request(entries(limit)) + request(entries(limit + 1)) + request("a=1&b"));
    expect(summary(await client.responses(3))).toEqual([
      [200, `${limit} entries\n`],
      [400, `Bad Request: the ${source} has more than ${limit} parameters (maxParameters)\n`],
      [200, "2 entries\n"],
    ]);
    await app.stop();
  },
);

test("queryValueRaw refuses a query over maxParameters as query() does, and serves one at it", async () => {
  const app = parameterApp({ maxParameters: 3 });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  const valueRequest = (query: string) => `GET /v?${query} HTTP/1.1\r\nHost: h\r\n\r\n`;
  // Three entries in text long enough to be counted (over 2 x 3 characters), then four.
  client.send(
    valueRequest("a=1&&&b=2&&&c=3") + valueRequest("a=1&b=2&c=3&d=4") + valueRequest("a=2"),
  );
  expect(summary(await client.responses(3))).toEqual([
    [200, "a is 1\n"],
    [400, "Bad Request: the query has more than 3 parameters (maxParameters)\n"],
    [200, "a is 2\n"],
  ]);
  await app.stop();
});

test("a lowered limit counts entries, not characters, at its boundary", async () => {
  const app = parameterApp({ maxParameters: 2 });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    queryRequest("a&&&&&&&&b") +
      queryRequest("a&b&c") +
      formRequest("x=1&&&&y") +
      formRequest("x&y&z"),
  );
  expect(summary(await client.responses(4))).toEqual([
    [200, "2 entries\n"],
    [400, "Bad Request: the query has more than 2 parameters (maxParameters)\n"],
    [200, "2 entries\n"],
    [400, "Bad Request: the form has more than 2 parameters (maxParameters)\n"],
  ]);
  await app.stop();
});

test("the handler sees a ParameterLimitError naming the source and the limit", async () => {
  const app = new App({ shared: {}, limits: { maxParameters: 1 } });
  app.route("GET", "/q", (ctx) => {
    try {
      ctx.request.query();
    } catch (error) {
      if (!(error instanceof ParameterLimitError)) throw error;
      ctx.response.json(200, { name: error.name, source: error.source, limit: error.limit });
    }
  });
  const response = await app.request("/q?a&b");
  expect(await response.json()).toEqual({ name: "ParameterLimitError", source: "query", limit: 1 });
});

test("maxParameters must be a whole number of at least 1", () => {
  expect(
    [0, 1.5, Number.NaN].map((maxParameters) => {
      try {
        new App({ shared: {}, limits: { maxParameters } });
        return "accepted";
      } catch (error) {
        return (error as Error).message;
      }
    }),
  ).toEqual([
    "corral: limit maxParameters must be a whole number >= 1, got 0",
    "corral: limit maxParameters must be a whole number >= 1, got 1.5",
    "corral: limit maxParameters must be a whole number >= 1, got NaN",
  ]);
});

test("a 1 MB form within a raised limit makes only the entries the handler reads", async () => {
  // Issue point 5, "views that do not multiply the body's size": counted as live plain objects
  // after a full collection, inside the handler while the form view is alive.
  const count = 250_000;
  const app = new App({ shared: {}, limits: { maxParameters: count } });
  app.route("POST", "/f", (ctx) => {
    const form = ctx.request.form();
    const before = liveObjects();
    const read = [form.length, form.firstRaw("a"), form.allRaw("b").length];
    const kept = liveObjects() - before;
    ctx.response.json(200, { read, fewObjects: kept < 100 });
  });
  const response = await app.request("/f", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "a=1&".repeat(count),
  });
  expect(await response.json()).toEqual({
    read: [count, { nameRaw: "a", valueRaw: "1" }, 0],
    fewObjects: true,
  });
});
