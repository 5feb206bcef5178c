import { expect, test } from "bun:test";
import { App, DecodeError, Duration, HttpError, middleware, params } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

test("a throwing handler's headers and body never reach the client; no message or stack leaks", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/", (ctx) => {
    ctx.response.header("X-Draft", "yes");
    ctx.response.setCookie("draft", "1");
    ctx.response.text(200, "half-written page");
    throw new Error("connection string postgres://admin:pw@db");
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  const wire = client.receivedText;
  expect({
    status: response.statusLine,
    body: response.text,
    draftHeader: wire.includes("X-Draft"),
    cookie: wire.includes("Set-Cookie"),
    page: wire.includes("half-written"),
    secret: wire.includes("postgres") || wire.includes("at "),
  }).toEqual({
    status: "HTTP/1.1 500 Internal Server Error",
    body: "Internal Server Error\n",
    draftHeader: false,
    cookie: false,
    page: false,
    secret: false,
  });
  await app.stop();
});

test("HttpError maps directly; DecodeError is a 400; onError sees every error and may keep or replace the answer; a failing onError is a bare 500", async () => {
  const app = new App({ shared: {} });
  const seen: string[] = [];
  app.route("GET", "/http", () => {
    throw new HttpError(409, "already exists", { headers: { "X-Reason": "dup" } });
  });
  app.route("GET", "/decode", () => {
    params.percentDecodeInto("%zz", new Uint8Array(8));
  });
  app.route("GET", "/custom", () => {
    throw new RangeError("out of range");
  });
  app.route("GET", "/async", async (ctx) => {
    await ctx.sleep(Duration.fromMilliseconds(1));
    throw new TypeError("later");
  });
  app.onError((error, ctx) => {
    seen.push(`${(error as Error).name} ${ctx.response.status}`);
    // Rethrowing the error it got keeps the App's answer; another error is a bare 500.
    if (error instanceof HttpError || error instanceof DecodeError) throw error;
    if (error instanceof TypeError) throw new Error("the mapper broke");
    ctx.response.json(422, { error: "unprocessable" });
  });
  const answers = [];
  for (const path of ["/http", "/decode", "/custom", "/async"]) {
    const response = await app.request(path);
    answers.push([response.status, await response.text(), response.headers.get("x-reason")]);
  }
  expect(answers).toEqual([
    [409, "already exists\n", "dup"],
    [400, expect.stringMatching(/^Bad Request: /), null],
    [422, '{"error":"unprocessable"}', null],
    [500, "Internal Server Error\n", null],
  ]);
  expect(seen).toEqual(["HttpError 409", "DecodeError 400", "RangeError 500", "TypeError 500"]);
  expect(DecodeError.name).toBe("DecodeError");
  await app.stop();
});

test("app.request() runs the engine's limits too: an over-long header section is a 431", async () => {
  const app = new App({ shared: {}, limits: { maxHeaderBytes: 256, maxRequestLineBytes: 128 } });
  app.route("GET", "/", (ctx) => ctx.response.text(200, "ok"));
  const fine = await app.request("/", { headers: { "x-pad": "a".repeat(50) } });
  const tooBig = await app.request("/", { headers: { "x-pad": "a".repeat(300) } });
  expect([fine.status, tooBig.status]).toEqual([200, 431]);
  await app.stop();
});

test("an onError that only logs still answers the bare 500", async () => {
  const logged: string[] = [];
  const app = new App({ shared: {} });
  app.route("GET", "/", () => {
    throw new Error("hidden");
  });
  app.onError((error) => {
    logged.push((error as Error).message);
  });
  const response = await app.request("/");
  expect([response.status, await response.text(), logged]).toEqual([
    500,
    "Internal Server Error\n",
    ["hidden"],
  ]);
  await app.stop();
});

test("an onError that writes nothing, sync or async, answers 500 on the wire, not an empty 200", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/", () => {
    throw new Error("hidden");
  });
  let calls = 0;
  // The first call returns at once, the second returns a promise that settles later.
  app.onError(() => {
    calls++;
    if (calls === 2) return Bun.sleep(0);
  });
  const server = listenQuietly(app);
  const answers: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    using client = await RawClient.connect(server.port);
    client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    const response = await client.response();
    answers.push(`${response.statusLine} | ${response.text}`);
  }
  expect([calls, answers]).toEqual([
    2,
    Array(2).fill("HTTP/1.1 500 Internal Server Error | Internal Server Error\n"),
  ]);
  await app.stop();
});

test("an onError answer carries exactly one Content-Type line on the wire", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/", () => {
    throw new RangeError("x");
  });
  app.onError((_error, ctx) => ctx.response.json(422, { error: "unprocessable" }));
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  const types = response.headers
    .filter(([name]) => name === "content-type")
    .map(([, value]) => value);
  expect([response.status, types, response.text]).toEqual([
    422,
    ["application/json"],
    '{"error":"unprocessable"}',
  ]);
  await app.stop();
});

test("an error whose answer cannot be drafted, or whose onError or after hook fails, is a logged 500 that keeps middleware headers and runs cleanup; the error answered is logged too when it was a server error", async () => {
  // Before, an HttpError with a body over the staging (or a header that is no header) escaped
  // the mapping: the engine wrote a bare 500 without the middleware's headers, no cleanup ran
  // and nothing was logged. A failing onError or after hook hid one of the two errors.
  const lines: string[] = [];
  const outcomes: string[] = [];
  let onErrorCalls = 0;
  const app = new App({
    shared: {},
    log: { error: (...parts: unknown[]) => lines.push(parts.map(String).join(" ")) },
  });
  app.use(
    middleware({
      before(ctx) {
        ctx.response.header("Access-Control-Allow-Origin", "*");
      },
      after(ctx) {
        if (ctx.request.path === "/after-fails") throw new Error("after hook bug");
      },
      cleanup(_ctx, outcome) {
        outcomes.push(outcome);
      },
    }),
  );
  app.onError((error) => {
    onErrorCalls++;
    if (error instanceof Error && error.message === "handler db failure") {
      throw new Error("onError bug");
    }
  });
  app.route("GET", "/big", () => {
    throw new HttpError(422, "invalid", { body: { errors: "x".repeat(70_000) } });
  });
  app.route("GET", "/bad-header", async () => {
    await Bun.sleep(1);
    throw new HttpError(401, "who?", { headers: { "WWW-Authenticate": "Bearer\r\nX-Evil: 1" } });
  });
  app.route("GET", "/on-error-fails", () => {
    throw new Error("handler db failure");
  });
  app.route("GET", "/after-fails", () => {
    throw new HttpError(404, "no such thing");
  });
  const server = listenQuietly(app);
  try {
    const answers: string[] = [];
    for (const path of ["/big", "/bad-header", "/on-error-fails", "/after-fails"]) {
      using client = await RawClient.connect(server.port);
      client.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
      const response = await client.response();
      answers.push(
        `${response.status} ${response.header("access-control-allow-origin")} ${response.text.trim()}`,
      );
    }
    expect(answers).toEqual([
      "500 * Internal Server Error",
      "500 * Internal Server Error",
      "500 * Internal Server Error",
      "500 * Internal Server Error",
    ]);
    expect({ outcomes, onErrorCalls }).toEqual({
      outcomes: ["error", "error", "error", "error"],
      onErrorCalls: 4,
    });
    const failing = (path: string, what: string) =>
      `corral: GET ${path}: ${what} failed while answering an error; the answer is a bare 500:`;
    const answered = (path: string) => `corral: GET ${path} answered 500 after an error:`;
    // The errors answered are logged when they were server errors in their own right: the
    // 422, 401 and 404 were the client's, made 500s by what failed.
    expect(lines.map((line) => line.split("\n")[0]!.slice(0, 200))).toEqual([
      expect.stringContaining(
        `${failing("/big", "drafting the answer to the error")} ResponseLimitError`,
      ),
      expect.stringContaining(
        `${failing("/bad-header", "drafting the answer to the error")} TypeError`,
      ),
      expect.stringContaining(`${failing("/on-error-fails", "onError")} Error: onError bug`),
      expect.stringContaining(`${answered("/on-error-fails")} Error: handler db failure`),
      expect.stringContaining(`${failing("/after-fails", "an after hook")} Error: after hook bug`),
    ]);
    expect(server.stats().handlerFailures).toBe(5);
  } finally {
    await app.stop();
  }
});
