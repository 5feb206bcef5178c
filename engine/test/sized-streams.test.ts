import { expect, test } from "bun:test";
import { RawClient } from "./support/raw-client.ts";
import { startServer } from "./support/test-server.ts";

const expected = `${"a".repeat(64)}${"b".repeat(64)}${"c".repeat(22)}`;
const request = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";

test("a stream with a declared length is sent raw after Content-Length, filled in place through the staging window", async () => {
  await using server = startServer(
    async (exchange) => {
      exchange.setHeader("Content-Type", "text/plain");
      const stream = exchange.stream();
      stream.declareLength(150);
      for (const piece of ["a".repeat(64), "b".repeat(64), "c".repeat(22)]) {
        const window = stream.stagingWindow();
        const written = new TextEncoder().encodeInto(piece, window).written;
        stream.commit(written);
        await stream.flush();
      }
      await stream.finish();
    },
    { stagingBytes: 64 },
  );
  using client = await RawClient.connect(server.port);
  client.send(request + request);
  const [first, second] = await client.responses(2);
  expect([first!.status, first!.header("content-length"), first!.text, second!.text]).toEqual([
    200,
    "150",
    expected,
    expected,
  ]);
  expect(client.receivedText.includes("Transfer-Encoding")).toBe(false);
});

test("the staging window stops at the declared length; writing past it is a TypeError", async () => {
  const seen: unknown[] = [];
  await using server = startServer(async (exchange) => {
    const stream = exchange.stream();
    stream.declareLength(3);
    seen.push(stream.stagingWindow().length);
    try {
      stream.write(new Uint8Array(4));
    } catch (error) {
      seen.push((error as Error).message);
    }
    stream.write(new Uint8Array([0x61, 0x62, 0x63]));
    seen.push(stream.stagingWindow().length);
    await stream.finish();
  });
  using client = await RawClient.connect(server.port);
  client.send(request);
  const response = await client.response();
  expect([response.text, seen]).toEqual([
    "abc",
    [3, "corral: the stream would reach 4 bytes, over its declared 3", 0],
  ]);
});

test("HTTP/1.0 keeps its connection for a declared length; HEAD gets the length and no body", async () => {
  await using server = startServer(async (exchange) => {
    const stream = exchange.stream();
    stream.declareLength(5);
    if (exchange.method !== "HEAD") stream.writeText("hello");
    await stream.finish();
  });
  using client = await RawClient.connect(server.port);
  client.send(
    "HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
  );
  await client.waitFor(() => client.receivedText.endsWith("hello"), "both answers");
  const text = client.receivedText.replace(/Date: [^\r]*\r\n/g, "");
  expect(text).toBe(
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\n" +
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nhello",
  );
});

test("a stream that ends short of its declared length closes the connection once the head is out", async () => {
  const errors: string[] = [];
  await using server = startServer(async (exchange) => {
    const stream = exchange.stream();
    stream.declareLength(8);
    stream.writeText("abc");
    await stream.flush();
    await stream.finish().catch((error: Error) => errors.push(error.message));
  });
  using client = await RawClient.connect(server.port);
  client.send(request);
  await client.waitForClose();
  expect([client.receivedText.endsWith("\r\n\r\nabc"), errors]).toEqual([
    true,
    ["corral: the stream ends at 3 of its declared 8 bytes"],
  ]);
});

test("a handler that returns short of its declared length before any flush is a failed handler: 500, and the connection goes on", async () => {
  const shortfalls: (string | undefined)[] = [];
  await using server = startServer((exchange) => {
    if (exchange.path === "/next") {
      exchange.writeText("next");
      return;
    }
    exchange.setHeader("X-Dropped", "1");
    const stream = exchange.stream();
    stream.declareLength(8);
    stream.writeText("abc");
    shortfalls.push(stream.shortfall);
  });
  using client = await RawClient.connect(server.port);
  client.send(`${request}GET /next HTTP/1.1\r\nHost: h\r\n\r\n`);
  const [failed, next] = await client.responses(2);
  expect([failed!.status, failed!.header("x-dropped"), failed!.text, next!.text]).toEqual([
    500,
    undefined,
    "Internal Server Error\n",
    "next",
  ]);
  expect(shortfalls).toEqual(["the stream ends at 3 of its declared 8 bytes"]);
  expect(server.stats().handlerFailures).toBe(1);
});

test("a HEAD answer or a stream that reached its length has no shortfall", async () => {
  const shortfalls: (string | undefined)[] = [];
  await using server = startServer((exchange) => {
    const stream = exchange.stream();
    stream.declareLength(3);
    shortfalls.push(stream.shortfall);
    if (exchange.method !== "HEAD") stream.writeText("abc");
    shortfalls.push(stream.shortfall);
  });
  using client = await RawClient.connect(server.port);
  client.send(`HEAD / HTTP/1.1\r\nHost: h\r\n\r\n${request}`);
  await client.responses(2);
  expect(shortfalls).toEqual([
    undefined,
    undefined,
    "the stream ends at 0 of its declared 3 bytes",
    undefined,
  ]);
  expect(server.stats().handlerFailures).toBe(0);
});
