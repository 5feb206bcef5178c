import { expect, test } from "bun:test";
import { App, type AppOptions, ClientGoneError } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const mebibyte = 1024 * 1024;

/** An App with one streamed route (PUT /files/:name) and one buffered route (POST /echo). */
function uploadApp(limits: AppOptions<object>["limits"] = {}) {
  const app = new App({ shared: {}, limits });
  app.route(
    "PUT",
    "/files/:name",
    async (ctx) => {
      const hasher = new Bun.CryptoHasher("sha256");
      let size = 0;
      for await (const piece of ctx.request.bodyStream()) {
        hasher.update(piece);
        size += piece.length;
      }
      ctx.response.text(201, `${ctx.params.name} ${size} ${hasher.digest("hex")}`);
    },
    { body: "stream" },
  );
  app.route("POST", "/echo", (ctx) => {
    ctx.response.text(200, `buffered ${ctx.request.text()}`);
  });
  return app;
}

test('a route with { body: "stream" } reads a 32 MiB upload as it arrives; other routes stay buffered', async () => {
  const app = uploadApp();
  const server = listenQuietly(app);
  const total = 32 * mebibyte;
  const block = crypto.getRandomValues(new Uint8Array(mebibyte));
  const hasher = new Bun.CryptoHasher("sha256");
  using client = await RawClient.connect(server.port);
  client.send(`PUT /files/a.bin HTTP/1.1\r\nHost: h\r\nContent-Length: ${total}\r\n\r\n`);
  for (let sent = 0; sent < total; sent += block.length) {
    hasher.update(block);
    await client.sendAll(block);
  }
  client.send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi");
  const [upload, echo] = await client.responses(2, 30_000);
  const stats = app.stats();
  expect({
    upload: `${upload!.status} ${upload!.text}`,
    echo: echo!.text,
    streamedIn: stats.bytesStreamedIn,
    copiedToWindow: stats.bytesCopiedToWindow,
  }).toEqual({
    upload: `201 a.bin ${total} ${hasher.digest("hex")}`,
    echo: "buffered hi",
    streamedIn: total,
    copiedToWindow: 0,
  });
  await app.stop();
}, 60_000);

test("a streamed route gets 413 past maxStreamedBodyBytes, not past maxBodyBytes", async () => {
  const app = uploadApp({ maxBodyBytes: 10, maxStreamedBodyBytes: 100 });
  const server = listenQuietly(app);
  const statuses: number[] = [];
  for (const length of [100, 101]) {
    using client = await RawClient.connect(server.port);
    client.send(`PUT /files/x HTTP/1.1\r\nHost: h\r\nContent-Length: ${length}\r\n\r\n`);
    if (length === 100) client.send("z".repeat(100));
    statuses.push((await client.response()).status);
  }
  using client = await RawClient.connect(server.port);
  client.send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world");
  statuses.push((await client.response()).status);
  expect(statuses).toEqual([201, 413, 413]);
  await app.stop();
});

test("a disconnect mid-upload rejects the read with ClientGoneError and fires ctx.signal", async () => {
  let failure: unknown = null;
  let signalFired = false;
  const app = new App({ shared: {} });
  app.route(
    "PUT",
    "/files/:name",
    async (ctx) => {
      ctx.signal.addEventListener("abort", () => {
        signalFired = true;
      });
      try {
        const buffer = new Uint8Array(4096);
        while ((await ctx.request.bodyStream().read(buffer)) > 0);
      } catch (error) {
        failure = error;
      }
    },
    { body: "stream" },
  );
  const server = listenQuietly(app);
  const client = await RawClient.connect(server.port);
  client.send("PUT /files/x HTTP/1.1\r\nHost: h\r\nContent-Length: 100000\r\n\r\n");
  client.send("y".repeat(5000));
  await waitUntil(() => app.stats().bytesStreamedIn === 5000, "the first bytes to be read");
  client.destroy();
  await waitUntil(() => failure !== null, "the read to reject");
  expect([failure instanceof ClientGoneError, signalFired]).toEqual([true, true]);
  await app.stop();
});

test("reading a streamed route's body whole, or streaming a buffered one, is a TypeError", async () => {
  const errors: string[] = [];
  const app = new App({ shared: {} });
  app.route(
    "PUT",
    "/stream",
    (ctx) => {
      try {
        ctx.request.text();
      } catch (error) {
        errors.push((error as Error).name);
      }
      ctx.response.text(200, "ok");
    },
    { body: "stream" },
  );
  app.route("PUT", "/buffer", (ctx) => {
    try {
      ctx.request.bodyStream();
    } catch (error) {
      errors.push((error as Error).name);
    }
    ctx.response.text(200, "ok");
  });
  const server = listenQuietly(app);
  for (const path of ["/stream", "/buffer"]) {
    using client = await RawClient.connect(server.port);
    client.send(`PUT ${path} HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx`);
    await client.response();
  }
  expect(errors).toEqual(["TypeError", "TypeError"]);
  expect(() =>
    new App({ shared: {} }).route("PUT", "/", () => {}, { body: "whole" as "stream" }),
  ).toThrow(TypeError);
  await app.stop();
});

test("an empty upload to a streamed route is an empty stream, not a 500; an empty multipart stream is a 400", async () => {
  // The engine offers a request to the route's streaming only when a body comes: a body-less PUT
  // found bodyStream() refusing "buffered" and the App answered 500.
  const app = uploadApp();
  app.route(
    "POST",
    "/form",
    async (ctx) => {
      let parts = 0;
      for await (const _part of ctx.request.multipartStream()) parts++;
      ctx.response.text(200, `${parts} parts`);
    },
    { body: "stream" },
  );
  const server = listenQuietly(app);
  const empty = new Bun.CryptoHasher("sha256").digest("hex");
  using client = await RawClient.connect(server.port);
  client.send(
    "PUT /files/a HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n" +
      "PUT /files/b HTTP/1.1\r\nHost: h\r\n\r\n" +
      "POST /form HTTP/1.1\r\nHost: h\r\nContent-Type: multipart/form-data; boundary=x\r\n" +
      "Content-Length: 0\r\n\r\n",
  );
  const responses = await client.responses(3);
  expect(responses.map((response) => `${response.status} ${response.text}`)).toEqual([
    `201 a 0 ${empty}`,
    `201 b 0 ${empty}`,
    "400 Bad Request: no delimiter in the body\n",
  ]);
  expect(app.stats().handlerFailures).toBe(0);
  await app.stop();
});

test("app.request() streams a body to a streamed route in process, as a socket would", async () => {
  const app = uploadApp();
  const bytes = crypto.getRandomValues(new Uint8Array(300_000));
  const response = await app.request("/files/p.bin", { method: "PUT", body: bytes });
  const digest = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  expect([response.status, await response.text()]).toEqual([201, `p.bin 300000 ${digest}`]);
  await app.stop();
});

test("a capture that does not decode is a 400 through the App on a request with a body, streamed route or not", async () => {
  // Asked whether the route streams its body, the router threw: the engine answered a bare 500,
  // outside the middleware, and counted a handler failure.
  const app = uploadApp();
  app.route("POST", "/u/:id", (ctx) => ctx.response.text(200, ctx.params.id));
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "POST /u/%FF HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx" +
      "PUT /files/%FF HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx" +
      "POST /u/7 HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx",
  );
  const responses = await client.responses(3);
  expect(responses.map((response) => [response.status, response.text])).toEqual([
    [400, "Bad Request: malformed percent-encoding in the path\n"],
    [400, "Bad Request: malformed percent-encoding in the path\n"],
    [200, "7"],
  ]);
  expect(app.stats().handlerFailures).toBe(0);
  await app.stop();
});
