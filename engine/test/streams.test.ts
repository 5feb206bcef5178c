import { expect, test } from "bun:test";
import type { Exchange } from "../index.ts";
import { RawClient } from "./support/raw-client.ts";
import { startServer, waitUntil } from "./support/test-server.ts";

test("a stream is sent chunked, one chunk per flush, and finished with the last chunk", async () => {
  const flushed: string[] = [];
  let next: () => void = () => {};
  await using server = startServer(async (exchange) => {
    exchange.setHeader("Content-Type", "text/plain");
    const stream = exchange.stream();
    stream.writeText("one\n");
    await stream.flush();
    flushed.push("one");
    await new Promise<void>((resolve) => {
      next = resolve;
    });
    stream.writeText("two\n");
    await stream.finish();
  });
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitFor(() => client.receivedText.endsWith("4\r\none\n\r\n"), "the first chunk");
  expect(client.receivedText).toContain("Transfer-Encoding: chunked\r\n");
  next();
  const response = await client.response();
  expect([response.text, client.receivedText.endsWith("4\r\ntwo\n\r\n0\r\n\r\n"), flushed]).toEqual(
    ["one\ntwo\n", true, ["one"]],
  );
  // The connection stays usable after a finished stream.
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => flushed.length === 2, "the second stream's first flush");
  next();
  expect((await client.responses(2))[1]!.text).toBe("one\ntwo\n");
});

test("HTTP/1.0 clients get a close-delimited stream", async () => {
  await using server = startServer(async (exchange) => {
    const stream = exchange.stream();
    stream.writeText("a");
    await stream.flush();
    stream.writeText("b");
    await stream.finish();
  });
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.0\r\n\r\n");
  await client.waitForClose();
  const text = client.receivedText;
  expect(text.includes("Transfer-Encoding")).toBe(false);
  expect(text.includes("Connection: close\r\n")).toBe(true);
  expect(text.endsWith("\r\n\r\nab")).toBe(true);
});

test("headers may change until the first flush and throw after it; borrowBody after stream() throws", async () => {
  const errors: string[] = [];
  await using server = startServer(async (exchange) => {
    const stream = exchange.stream();
    exchange.setHeader("X-Early", "yes");
    try {
      exchange.borrowBody(new Uint8Array(300));
    } catch (error) {
      errors.push((error as Error).message);
    }
    stream.writeText("x");
    await stream.flush();
    try {
      exchange.setHeader("X-Late", "no");
    } catch (error) {
      errors.push((error as Error).message);
    }
    await stream.finish();
  });
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  expect([response.header("x-early"), response.header("x-late"), errors]).toEqual([
    "yes",
    undefined,
    [
      "corral: a streamed response cannot take a borrowed body",
      "corral: headers cannot change after the first flush of a stream",
    ],
  ]);
});

test("a client that leaves mid-stream makes flush reject, fires the signal and frees the worker", async () => {
  const events: string[] = [];
  await using server = startServer(async (exchange) => {
    exchange.signal.addEventListener("abort", () => events.push("signal"));
    const stream = exchange.stream();
    stream.writeText("first\n");
    await stream.flush();
    events.push("first flushed");
    try {
      for (let round = 0; round < 1000; round++) {
        await Bun.sleep(2);
        stream.writeText("more\n");
        await stream.flush();
      }
    } catch (error) {
      events.push((error as Error).name);
    }
  });
  const client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitFor(() => client.receivedText.includes("first"), "the first part");
  client.destroy();
  await waitUntil(() => events.includes("ClientGoneError"), "the flush to reject");
  await waitUntil(() => server.stats().workersBusy === 0, "the worker to be free");
  expect(events.slice(0, 3).sort()).toEqual(["ClientGoneError", "first flushed", "signal"].sort());
});

test("a reader that reads nothing: flush waits, staging stays bounded, others are served", async () => {
  let flushes = 0;
  const chunk = new Uint8Array(4096).fill(0x7a);
  await using server = startServer(
    async (exchange) => {
      if (exchange.path === "/other") {
        exchange.writeText("other");
        return;
      }
      const stream = exchange.stream();
      for (;;) {
        let offset = 0;
        while (offset < chunk.length) offset += stream.write(chunk.subarray(offset));
        await stream.flush();
        flushes++;
      }
    },
    { stagingBytes: 4096, writeStallMs: 60_000 },
  );
  const stuck = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port,
    socket: {
      data() {},
      open(socket) {
        socket.pause();
      },
    },
  });
  stuck.write("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n");
  // Wait until the kernel buffers are full and the handler waits on its flush.
  let previous = -1;
  for (;;) {
    await Bun.sleep(100);
    if (flushes === previous) break;
    previous = flushes;
  }
  const bytesOut = server.stats().bytesOut;
  using other = await RawClient.connect(server.port);
  other.send("GET /other HTTP/1.1\r\nHost: h\r\n\r\n");
  expect((await other.response()).text).toBe("other");
  // The handler is parked on one flush: bytes sent equal what the socket took, no more queued.
  expect(server.stats().bytesOut - bytesOut).toBeLessThan(1024);
  expect(server.stats().bytesCopiedToStaging).toBeLessThanOrEqual(bytesOut + 4096 + 5);
  stuck.terminate();
});

test("a stream left open by a returning handler is finished; a throwing handler aborts it", async () => {
  await using server = startServer((exchange) => {
    const stream = exchange.stream();
    stream.writeText("partial");
    if (exchange.path === "/throw") {
      return stream.flush().then(() => {
        throw new Error("boom");
      });
    }
  });
  using finished = await RawClient.connect(server.port);
  finished.send("GET /return HTTP/1.1\r\nHost: h\r\n\r\n");
  expect((await finished.response()).text).toBe("partial");
  using aborted = await RawClient.connect(server.port);
  aborted.send("GET /throw HTTP/1.1\r\nHost: h\r\n\r\n");
  await aborted.waitForClose();
  expect(aborted.receivedText.endsWith("7\r\npartial\r\n")).toBe(true);
  expect(server.stats().handlerFailures).toBe(1);
});

test("detached streams give their worker back while they wait: 3 streams on 1 worker", async () => {
  const waiting: Exchange[] = [];
  await using server = startServer(
    async (exchange) => {
      const stream = exchange.stream();
      stream.writeText("hello\n");
      await stream.flush();
      exchange.detach();
      exchange.releaseWorker();
      waiting.push(exchange);
    },
    { workers: 1 },
  );
  const clients = await Promise.all([0, 1, 2].map(() => RawClient.connect(server.port)));
  for (const client of clients) client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => waiting.length === 3, "three waiting streams");
  expect(server.stats().workersBusy).toBe(0);
  for (const exchange of waiting) {
    await exchange.acquireWorker();
    const stream = exchange.stream();
    stream.writeText("news\n");
    await stream.finish();
  }
  const texts = await Promise.all(clients.map(async (client) => (await client.response()).text));
  expect(texts).toEqual(["hello\nnews\n", "hello\nnews\n", "hello\nnews\n"]);
  await waitUntil(() => server.stats().workersBusy === 0, "the worker to be free");
  for (const client of clients) client.destroy();
});

test("a handler that throws before its stream's first flush gets the bare 500, like any other", async () => {
  await using server = startServer(async (exchange) => {
    if (exchange.path === "/ok") return exchange.writeText("ok");
    exchange.setHeader("X-Draft", "yes");
    const stream = exchange.stream();
    stream.writeText("partial");
    await Promise.resolve();
    throw new Error("failed before the first flush");
  });
  using client = await RawClient.connect(server.port);
  client.send("GET /fail HTTP/1.1\r\nHost: h\r\n\r\nGET /ok HTTP/1.1\r\nHost: h\r\n\r\n");
  const [failed, ok] = await client.responses(2);
  expect({
    failed: [failed!.statusLine, failed!.header("transfer-encoding"), failed!.text],
    ok: ok!.text,
    leaked: client.receivedText.includes("partial") || client.receivedText.includes("X-Draft"),
    failures: server.stats().handlerFailures,
  }).toEqual({
    failed: ["HTTP/1.1 500 Internal Server Error", undefined, "Internal Server Error\n"],
    ok: "ok",
    leaked: false,
    failures: 1,
  });
});
