import { expect, test } from "bun:test";
import { App } from "corral";
import { chunkedFramingBytesPerTurn } from "../../engine/src/parser/chunked-body.ts";
import { parseResponses, RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

// A body of 1-byte chunks costs about 4 ns a byte to decode, and Bun reads up to 512 KiB at a
// time, several reads in a row: before, one such upload decoded megabytes in one turn of the
// event loop, and a side request waited 30 ms behind one uploader and 140 ms behind four. A
// body now decodes at most `chunkedFramingBytesPerTurn` (64 KiB) of framing a turn, reading
// paused meanwhile, and the other connections run in between. The uploads come from another
// process, so that they arrive as fast as the socket takes them, never slowed by the server's
// own event loop.

const chunkedHead =
  "POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";

/**
 * Sends `chunkedHead` with a body of `chunks` 1-byte chunks from another process, and resolves
 * with the text of the response.
 */
async function uploadFromAnotherProcess(port: number, chunks: number): Promise<string> {
  const script = `
    const net = require("node:net");
    const socket = net.connect(${port}, "127.0.0.1");
    socket.write(${JSON.stringify(chunkedHead)});
    socket.write(Buffer.from("1\\r\\nx\\r\\n".repeat(${chunks}) + "0\\r\\n\\r\\n"));
    const received = [];
    socket.on("data", (data) => received.push(data));
    socket.on("end", () => process.stdout.write(Buffer.concat(received), () => process.exit(0)));`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe" });
  const bytes = new Uint8Array(await new Response(child.stdout).arrayBuffer());
  return parseResponses(bytes, true)[0]!.text;
}

test("a streamed body of 1-byte chunks: a side request is answered while it is decoded", async () => {
  const total = 1_500_000;
  let received = 0;
  const app = new App({ shared: {}, log: null });
  app.route(
    "POST",
    "/upload",
    async (ctx) => {
      for await (const piece of ctx.request.bodyStream()) received += piece.length;
      ctx.response.text(200, `got ${received}`);
    },
    { body: "stream" },
  );
  app.get("/side", (ctx) => ctx.response.text(200, String(received)));
  const server = listenQuietly(app);
  const upload = uploadFromAnotherProcess(server.port, total);
  using side = await RawClient.connect(server.port);
  await waitUntil(() => received >= 100_000, "the upload to be well under way", 10_000);
  const receivedWhenSent = received;
  side.send("GET /side HTTP/1.1\r\nHost: h\r\n\r\n");
  const receivedBeforeSide = Number((await side.response()).text) - receivedWhenSent;
  expect(chunkedFramingBytesPerTurn).toBe(64 * 1024);
  // Before: 506,000 bytes, the socket chunks of one turn; now 11,000, one turn's framing.
  expect(receivedBeforeSide).toBeLessThan(total / 8);
  expect(await upload).toBe(`got ${total}`);
  await app.stop();
}, 30_000);

test("a whole body of 1-byte chunks: a side request is answered while it is decoded", async () => {
  const total = 1_500_000;
  const app = new App({ shared: {}, log: null, limits: { maxBodyBytes: total } });
  app.route("POST", "/upload", (ctx) => ctx.response.text(200, `got ${ctx.request.body.length}`));
  app.get("/side", (ctx) => ctx.response.text(200, String(app.stats().bytesIn)));
  const server = listenQuietly(app);
  const upload = uploadFromAnotherProcess(server.port, total);
  using side = await RawClient.connect(server.port);
  await waitUntil(
    () => app.stats().bytesIn >= 1_000_000,
    "the upload to be well under way",
    10_000,
  );
  const readWhenSent = app.stats().bytesIn;
  side.send("GET /side HTTP/1.1\r\nHost: h\r\n\r\n");
  const readBeforeSide = Number((await side.response()).text) - readWhenSent;
  // Before: 3 MB, the socket chunks of one turn, all decoded; now at most one socket chunk.
  expect(readBeforeSide).toBeLessThan(1024 * 1024);
  expect(await upload).toBe(`got ${total}`);
  await app.stop();
}, 30_000);
