import { expect, test } from "bun:test";
import { App, DecodeError, Duration, HttpError, params } from "corral";
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
