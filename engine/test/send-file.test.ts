import { afterEach, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { overrideSendFile } from "../src/internal/send-file.ts";
import { parseResponses, RawClient } from "./support/raw-client.ts";
import { startServer, waitUntil } from "./support/test-server.ts";

// Larger than what loopback's socket buffers hold, so a client that stops reading blocks it.
const size = 24 * 1024 * 1024 + 17;
const content = new Uint8Array(size);
for (let at = 0; at < size; at += 65_536) {
  crypto.getRandomValues(content.subarray(at, Math.min(size, at + 65_536)));
}

function fileFixture() {
  const directory = mkdtempSync(join(tmpdir(), "corral-sendfile-"));
  const path = join(directory, "body.bin");
  writeFileSync(path, content);
  const descriptor = openSync(path, "r");
  return {
    path,
    descriptor,
    [Symbol.dispose]() {
      closeSync(descriptor);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

afterEach(() => overrideSendFile(undefined));

/** A server answering every request with `before`, then bytes [from, to) of the file. */
function fileServer(descriptor: number, before: string, from: number, to: number) {
  return startServer(async (exchange) => {
    const stream = exchange.stream();
    stream.declareLength(before.length + (to - from));
    stream.writeText(before);
    await stream.sendFile(descriptor, from, to - from);
    await stream.finish();
  });
}

/** The bytes after the head of answer `index` (the first by default), to the end received. */
function bodyOf(client: RawClient, index = 0): Uint8Array {
  const received = client.received;
  let at = 0;
  for (let answer = 0; answer <= index; answer++) {
    at =
      Buffer.from(received.buffer, received.byteOffset, received.length).indexOf("\r\n\r\n", at) +
      4;
  }
  return received.subarray(at);
}

/** Waits until `length` body bytes after the first head came (cheap: no text decoding). */
async function waitForBody(client: RawClient, length: number): Promise<Uint8Array> {
  await client.waitFor(() => client.received.length >= length, "the whole body", 20_000);
  await client.waitFor(() => bodyOf(client).length >= length, "the whole body", 20_000);
  return bodyOf(client);
}

test("sendFile sends the staged bytes, then the file range, with sendfile: every byte in order", async () => {
  using fixture = fileFixture();
  await using server = fileServer(fixture.descriptor, "head:", 5, size);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const body = await waitForBody(client, size);
  const head = Buffer.from(client.received.subarray(0, 200)).toString("latin1");
  expect(head).toStartWith("HTTP/1.1 200 OK\r\n");
  expect(head).toContain(`Content-Length: ${size}\r\n`);
  expect(Buffer.from(body.subarray(0, 5)).toString()).toBe("head:");
  expect(Bun.hash(body.subarray(5))).toBe(Bun.hash(content.subarray(5)));
  // In the kernel: all but what went through the output buffer while the socket was full.
  const stats = server.stats();
  expect(stats.bytesSentFromFiles).toBeGreaterThan(0);
  expect(stats.bytesSentFromFiles).toBeLessThanOrEqual(size - 5);
});

test("a client that stops reading: the rest waits for drain, nothing lost, and a side client is served", async () => {
  using fixture = fileFixture();
  await using server = startServer(async (exchange) => {
    if (exchange.path === "/side") {
      exchange.writeText("side");
      return;
    }
    const stream = exchange.stream();
    stream.declareLength(size);
    await stream.sendFile(fixture.descriptor, 0, size);
    await stream.finish();
  });
  using slow = await RawClient.connect(server.port);
  slow.stopReading();
  slow.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().blockedConnections === 1, "the download to block");
  using side = await RawClient.connect(server.port);
  side.send("GET /side HTTP/1.1\r\nHost: h\r\n\r\n");
  await side.waitFor(() => side.receivedText.endsWith("side"), "the side answer");
  slow.resumeReading();
  expect(Bun.hash(await waitForBody(slow, size))).toBe(Bun.hash(content));
});

test("without sendfile (another platform) the range is read through the output buffer: same bytes", async () => {
  overrideSendFile(null);
  using fixture = fileFixture();
  await using server = fileServer(fixture.descriptor, "", 0, size);
  using client = await RawClient.connect(server.port);
  client.stopReading();
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().blockedConnections === 1, "the download to block");
  client.resumeReading();
  expect(Bun.hash(await waitForBody(client, size))).toBe(Bun.hash(content));
  expect(server.stats().bytesSentFromFiles).toBe(0);
});

test("a file that ends before its range ends the connection: the body is short of its length", async () => {
  using fixture = fileFixture();
  // One byte past the end of the file: the last sendfile finds nothing more to send.
  await using server = fileServer(fixture.descriptor, "", size - 100, size + 1);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitForClose(5000);
  const response = parseResponses(client.received, true)[0];
  expect(client.receivedText).toContain("Content-Length: 101\r\n");
  expect(bodyOf(client).length).toBe(100);
  expect(response === undefined || response.body.length < 101).toBe(true);
});

test("sendFile needs a declared length and stays within it; HEAD sends no body", async () => {
  using fixture = fileFixture();
  const errors: string[] = [];
  await using server = startServer(async (exchange) => {
    const stream = exchange.stream();
    try {
      stream.sendFile(fixture.descriptor, 0, 10);
    } catch (error) {
      errors.push((error as Error).message);
    }
    stream.declareLength(10);
    try {
      stream.sendFile(fixture.descriptor, 0, 11);
    } catch (error) {
      errors.push((error as Error).message);
    }
    await stream.sendFile(fixture.descriptor, 0, 10);
    await stream.finish();
  });
  using client = await RawClient.connect(server.port);
  client.send("HEAD / HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const answers = () => client.receivedText.split("HTTP/1.1 200 OK\r\n").length - 1;
  await client.waitFor(
    () => answers() === 2 && client.receivedText.endsWith("\r\n\r\n") === false,
    "two answers",
  );
  await client.waitFor(() => bodyOf(client, 1).length === 10, "the GET body");
  expect(errors).toEqual([
    "corral: sendFile() needs a stream of declared length",
    "corral: the stream would reach 11 bytes, over its declared 10",
    "corral: sendFile() needs a stream of declared length",
    "corral: the stream would reach 11 bytes, over its declared 10",
  ]);
  // The HEAD answer's head is followed at once by the GET answer: no body between them.
  const [headAnswer] = client.receivedText.split("HTTP/1.1 200 OK\r\n").slice(1);
  expect(headAnswer).toContain("Content-Length: 10\r\n");
  expect(headAnswer).toEndWith("\r\n\r\n");
  expect([...bodyOf(client, 1)]).toEqual([...content.subarray(0, 10)]);
});
