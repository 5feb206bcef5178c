import { expect, test } from "bun:test";
import { App, ManualIo, middleware, type RequestOutcome } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

test("a write larger than staging waits for flushes instead of growing; the bytes arrive whole", async () => {
  const big = new Uint8Array(100_000);
  for (let index = 0; index < big.length; index++) big[index] = index % 251;
  const app = new App({ shared: {}, limits: { stagingBytes: 1024 } });
  app.route("GET", "/", async (ctx) => {
    const stream = ctx.response.stream(200, "application/octet-stream");
    await stream.writer().writeAll(big);
    await stream.finish();
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  expect(Buffer.from(response.body).equals(Buffer.from(big))).toBe(true);
  // Every chunk fit in the 1 KiB staging: about 100 chunks, none larger.
  const sizes = [...client.receivedText.matchAll(/\r\n([0-9a-f]+)\r\n/g)].map((m) =>
    Number.parseInt(m[1]!, 16),
  );
  expect(Math.max(...sizes)).toBeLessThanOrEqual(1024);
  await app.stop();
});

test("the combination rule: borrowBody and stream exclude each other, before or after a flush", async () => {
  const errors: string[] = [];
  const app = new App({ shared: {} });
  app.route("GET", "/stream-then-borrow", async (ctx) => {
    const stream = ctx.response.stream(200, "text/plain");
    try {
      ctx.response.borrowBody(200, "text/plain", new Uint8Array(300));
    } catch (error) {
      errors.push(`before flush: ${(error as Error).message}`);
    }
    await stream.writer().writeAll("a");
    await stream.writer().flush();
    try {
      ctx.response.borrowBody(200, "text/plain", new Uint8Array(300));
    } catch (error) {
      errors.push(`after flush: ${(error as Error).message}`);
    }
    await stream.writer().writeAll(new Uint8Array([0x62]));
    await stream.finish();
  });
  app.route("GET", "/borrow-then-stream", (ctx) => {
    ctx.response.borrowBody(200, "text/plain", new Uint8Array(300).fill(0x63));
    try {
      ctx.response.stream(200, "text/plain");
    } catch (error) {
      errors.push(`stream after borrow: ${(error as Error).message}`);
    }
  });
  const first = await app.request("/stream-then-borrow");
  const second = await app.request("/borrow-then-stream");
  expect([await first.text(), (await second.text()).length, errors]).toEqual([
    "ab",
    300,
    [
      "before flush: corral: a streamed response cannot take a borrowed body; write the bytes with the stream's writer",
      "after flush: corral: a streamed response cannot take a borrowed body; write the bytes with the stream's writer",
      "stream after borrow: corral: a response with a borrowed body cannot also be streamed",
    ],
  ]);
  await app.stop();
});

test("HTTP/1.0 gets a close-delimited stream; headers are final after the first flush", async () => {
  const errors: string[] = [];
  const app = new App({ shared: {} });
  app.route("GET", "/", async (ctx) => {
    const stream = ctx.response.stream(200, "text/plain");
    ctx.response.header("X-Early", "ok");
    const writer = stream.writer();
    await writer.print("{}-", 1);
    await writer.flush();
    try {
      ctx.response.header("X-Late", "no");
    } catch (error) {
      errors.push((error as Error).message);
    }
    await writer.print("{}", 2);
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.0\r\n\r\n");
  await client.waitForClose();
  const text = client.receivedText;
  expect([
    text.includes("X-Early: ok"),
    text.includes("X-Late"),
    text.endsWith("\r\n\r\n1-2"),
    errors,
  ]).toEqual([
    true,
    false,
    true,
    ["corral: headers cannot change after the first flush of a stream"],
  ]);
  await app.stop();
});

test("a throwing stream handler aborts the stream (no last chunk) and cleanup sees the error", async () => {
  const outcomes: RequestOutcome[] = [];
  const app = new App({ shared: {} }).use(
    middleware({ cleanup: (_ctx, outcome) => outcomes.push(outcome) }),
  );
  app.route("GET", "/", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("partial");
    await writer.flush();
    throw new Error("broke mid-stream");
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitForClose();
  expect([
    client.receivedText.endsWith("7\r\npartial\r\n"),
    client.receivedText.includes("0\r\n\r\n"),
    outcomes,
  ]).toEqual([true, false, ["error"]]);
  await app.stop();
});

test("disconnects at each stream state release the handler, fire the signal and run cleanup", async () => {
  const io = new ManualIo();
  const outcomes: string[] = [];
  const app = new App({ shared: {}, io }).use(
    middleware<{ path: string }>({
      before: (ctx) => {
        ctx.locals.path = ctx.request.path;
      },
      cleanup: (ctx, outcome) => outcomes.push(`${ctx.locals.path}:${outcome}`),
    }),
  );
  // Unpublished (headers not final): the client leaves before the first flush.
  app.route("GET", "/unflushed", async (ctx) => {
    ctx.response.stream(200, "text/plain");
    await ctx.sleep(1000);
  });
  // Streaming, waiting on a timer between flushes.
  app.route("GET", "/sleeping", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("x");
    await writer.flush();
    await ctx.sleep(1000);
  });
  // Streaming, waiting on a flush to a reader that reads nothing.
  app.route("GET", "/flushing", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    const chunk = new Uint8Array(60_000);
    for (;;) {
      await writer.writeAll(chunk);
      await writer.flush();
    }
  });
  const server = listenQuietly(app);
  for (const path of ["/unflushed", "/sleeping"]) {
    const client = await RawClient.connect(server.port);
    client.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
    await waitUntil(() => io.pendingTimers === 1, `${path} to wait`);
    client.destroy();
    await waitUntil(
      () => outcomes.length > 0 && outcomes.at(-1)!.startsWith(path),
      `${path} cleanup`,
    );
  }
  const stuck = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port,
    socket: { data() {}, open: (socket) => socket.pause() },
  });
  stuck.write("GET /flushing HTTP/1.1\r\nHost: h\r\n\r\n");
  let before = -1;
  while (server.stats().bytesOut !== before) {
    before = server.stats().bytesOut;
    await Bun.sleep(50);
  }
  stuck.terminate();
  await waitUntil(() => outcomes.length === 3, "/flushing cleanup");
  await waitUntil(() => server.stats().workersBusy === 0, "every worker back");
  expect(outcomes).toEqual(["/unflushed:aborted", "/sleeping:aborted", "/flushing:aborted"]);
  await app.stop();
});
