import { expect, test } from "bun:test";
import {
  ClientGoneError,
  type Exchange,
  type Handler,
  type Limits,
  listen,
  type Server,
} from "../index.ts";
import { RawClient } from "./support/raw-client.ts";
import { waitUntil } from "./support/test-server.ts";

const mebibyte = 1024 * 1024;

/** A server whose PUT requests stream their bodies; stopped by `await using`. */
function startStreaming(
  handler: Handler,
  limits: Partial<Limits> = {},
  streamBodies: (exchange: Exchange) => boolean = (exchange) => exchange.method === "PUT",
): Server & AsyncDisposable {
  const server = listen({ port: 0, handler, limits, log: null, streamBodies });
  return Object.assign(server, {
    async [Symbol.asyncDispose]() {
      await server.stop({ graceMs: 100 });
    },
  });
}

/** The most bytes the server had read off the socket beyond what the handler was given. */
let largestReadAhead = 0;

/** Hashes the streamed body; answers `size digest largest-piece`. */
function hashingHandler(server: () => Server): Handler {
  return async (exchange) => {
    const hasher = new Bun.CryptoHasher("sha256");
    let size = 0;
    let largestPiece = 0;
    largestReadAhead = 0;
    for await (const piece of exchange.bodyStream()) {
      hasher.update(piece);
      size += piece.length;
      if (piece.length > largestPiece) largestPiece = piece.length;
      const stats = server().stats();
      largestReadAhead = Math.max(largestReadAhead, stats.bytesIn - stats.bytesStreamedIn);
    }
    exchange.writeText(`${size} ${hasher.digest("hex")} ${largestPiece}`);
  };
}

/** Deterministic body blocks made on the fly: a random block with its index stamped in. */
function* generatedBlocks(totalBytes: number, blockBytes: number): Generator<Uint8Array> {
  const base = crypto.getRandomValues(new Uint8Array(blockBytes));
  for (let offset = 0, index = 0; offset < totalBytes; offset += blockBytes, index++) {
    const block = base.slice(0, Math.min(blockBytes, totalBytes - offset));
    new DataView(block.buffer).setUint32(0, index);
    yield block;
  }
}

function chunkedFrame(block: Uint8Array): Uint8Array {
  const size = Buffer.from(`${block.length.toString(16)}\r\n`, "latin1");
  const frame = new Uint8Array(size.length + block.length + 2);
  frame.set(size, 0);
  frame.set(block, size.length);
  frame.set([13, 10], size.length + block.length);
  return frame;
}

async function upload(port: number, totalBytes: number, chunked: boolean) {
  using client = await RawClient.connect(port);
  const framing = chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${totalBytes}`;
  client.send(`PUT /big HTTP/1.1\r\nHost: h\r\n${framing}\r\n\r\n`);
  const hasher = new Bun.CryptoHasher("sha256");
  for (const block of generatedBlocks(totalBytes, 256 * 1024)) {
    hasher.update(block);
    await client.sendAll(chunked ? chunkedFrame(block) : block);
  }
  if (chunked) client.send("0\r\n\r\n");
  const response = await client.response(60_000);
  return { response, digest: hasher.digest("hex") };
}

test("a 256 MiB PUT streams through with its SHA-256 intact and no byte copied", async () => {
  await using server = startStreaming(hashingHandler(() => server));
  const total = 256 * mebibyte;
  const { response, digest } = await upload(server.port, total, false);
  const [size, served] = response.text.split(" ");
  const stats = server.stats();
  expect({
    status: response.status,
    size: Number(size),
    digestMatches: served === digest,
    streamedIn: stats.bytesStreamedIn,
    copiedToWindow: stats.bytesCopiedToWindow,
    // Reads pause while the handler works on a piece: at most a chunk or two wait in memory.
    readAheadUnderOneMebibyte: largestReadAhead < mebibyte,
  }).toEqual({
    status: 200,
    size: total,
    digestMatches: true,
    streamedIn: total,
    copiedToWindow: 0,
    readAheadUnderOneMebibyte: true,
  });
}, 120_000);

test("a 64 MiB chunked PUT is decoded one window at a time, never more", async () => {
  await using server = startStreaming(
    hashingHandler(() => server),
    { streamWindowBytes: 8192 },
  );
  const total = 64 * mebibyte;
  const { response, digest } = await upload(server.port, total, true);
  const [size, served, largestPiece] = response.text.split(" ");
  const stats = server.stats();
  expect({
    status: response.status,
    size: Number(size),
    digestMatches: served === digest,
    largestPiece: Number(largestPiece),
    streamedIn: stats.bytesStreamedIn,
    copiedToWindow: stats.bytesCopiedToWindow,
  }).toEqual({
    status: 200,
    size: total,
    digestMatches: true,
    largestPiece: 8192,
    streamedIn: total,
    copiedToWindow: total,
  });
}, 120_000);

test("maxStreamedBodyBytes: exactly at the limit passes, one byte more is 413", async () => {
  let handled = 0;
  await using server = startStreaming(
    async (exchange) => {
      handled++;
      let size = 0;
      for await (const piece of exchange.bodyStream()) size += piece.length;
      exchange.writeText(String(size));
    },
    { maxStreamedBodyBytes: 1000, maxBodyBytes: 10 },
  );
  const answers: string[] = [];
  for (const length of [1000, 1001]) {
    using client = await RawClient.connect(server.port);
    // Only the head: a declared length over the limit is refused before any body byte.
    client.send(`PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: ${length}\r\n\r\n`);
    if (length === 1000) client.send("x".repeat(1000));
    const response = await client.response();
    answers.push(
      `CL ${length}: ${response.status} ${response.status === 200 ? response.text : ""}`,
    );
  }
  for (const length of [1000, 1001]) {
    using client = await RawClient.connect(server.port);
    client.send("PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n");
    client.send(`3e8\r\n${"x".repeat(1000)}\r\n`);
    client.send(length === 1000 ? "0\r\n\r\n" : "1\r\ny\r\n0\r\n\r\n");
    const response = await client.response();
    answers.push(
      `chunked ${length}: ${response.status} ${response.status === 200 ? response.text : ""}`,
    );
  }
  expect({ answers, handled, errors: server.stats().errors }).toEqual({
    answers: ["CL 1000: 200 1000", "CL 1001: 413 ", "chunked 1000: 200 1000", "chunked 1001: 413 "],
    handled: 3,
    errors: { bodyTooLarge: 2 },
  });
});

test("a stalled uploader gets 408 from the last progress while a side client is served", async () => {
  let failure: unknown = null;
  await using server = startStreaming(
    async (exchange) => {
      if (exchange.method === "GET") {
        exchange.writeText("side");
        return;
      }
      try {
        for await (const _piece of exchange.bodyStream());
      } catch (error) {
        failure = error;
      }
    },
    // 600 ms: the side client's connection and answer must come first even on a loaded machine.
    { bodyDeadlineMs: 600, sweepIntervalMs: 20, requestDeadlineMs: 60_000 },
  );
  using stalled = await RawClient.connect(server.port);
  stalled.send("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 100000\r\n\r\n");
  stalled.send("x".repeat(5000));
  await waitUntil(() => server.stats().bytesStreamedIn === 5000, "the first bytes to be read");
  using side = await RawClient.connect(server.port);
  side.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const sideResponse = await side.response();
  const sideServedFirst = !stalled.receivedText.includes("408");
  const stalledResponse = await stalled.response();
  await waitUntil(() => failure !== null, "the pending read to reject");
  expect({
    side: `${sideResponse.status} ${sideResponse.text}`,
    sideServedFirst,
    stalled: stalledResponse.status,
    failure: (failure as Error).name,
    bodyDeadlines: server.stats().deadlineCloses.body,
  }).toEqual({
    side: "200 side",
    sideServedFirst: true,
    stalled: 408,
    failure: "ClientGoneError",
    bodyDeadlines: 1,
  });
});

test("a disconnect mid-upload rejects the pending read with ClientGoneError and fires the signal", async () => {
  let failure: unknown = null;
  let signalFired = false;
  await using server = startStreaming(async (exchange) => {
    exchange.signal.addEventListener("abort", () => {
      signalFired = true;
    });
    try {
      for await (const _piece of exchange.bodyStream());
    } catch (error) {
      failure = error;
    }
  });
  const client = await RawClient.connect(server.port);
  client.send("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 1000000\r\n\r\n");
  client.send("x".repeat(10_000));
  await waitUntil(() => server.stats().bytesStreamedIn === 10_000, "the first bytes to be read");
  client.destroy();
  await waitUntil(() => failure !== null, "the pending read to reject");
  await waitUntil(() => server.stats().workersBusy === 0, "the worker to come back");
  expect({ clientGone: failure instanceof ClientGoneError, signalFired }).toEqual({
    clientGone: true,
    signalFired: true,
  });
});

test("Expect: 100-continue is answered only when the handler starts reading", async () => {
  let startReading: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    startReading = resolve;
  });
  let dispatched = false;
  await using server = startStreaming(async (exchange) => {
    dispatched = true;
    await gate;
    const body = exchange.bodyStream();
    const buffer = new Uint8Array(3);
    let text = "";
    for (let count = await body.read(buffer); count > 0; count = await body.read(buffer)) {
      text += Buffer.from(buffer.subarray(0, count)).toString("latin1");
    }
    exchange.writeText(text);
  });
  using client = await RawClient.connect(server.port);
  client.send("PUT / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 11\r\n\r\n");
  await waitUntil(() => dispatched, "the handler to run");
  const beforeReading = client.receivedText;
  startReading();
  await client.waitFor(() => client.receivedText.includes("100 Continue"), "100 Continue");
  client.send("hello world");
  await client.waitFor(() => client.receivedText.includes("hello world"), "the answer");
  expect({ beforeReading, received: client.receivedText.split("\r\n")[0] }).toEqual({
    beforeReading: "",
    received: "HTTP/1.1 100 Continue",
  });
});

test("after a streamed body the connection serves the next request; buffered bodies stay buffered", async () => {
  await using server = startStreaming(async (exchange) => {
    if (exchange.bodyStreamed) {
      let size = 0;
      for await (const piece of exchange.bodyStream()) size += piece.length;
      exchange.writeText(`streamed ${size}`);
      return;
    }
    exchange.writeText(`buffered ${Buffer.from(exchange.body).toString("latin1")}`);
  });
  using client = await RawClient.connect(server.port);
  client.send(
    "PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nabcde" +
      "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz" +
      "PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n",
  );
  const responses = await client.responses(3);
  expect(responses.map((response) => response.text)).toEqual([
    "streamed 5",
    "buffered xyz",
    "streamed 2",
  ]);
});

test("a request without a body on a streaming route reads an empty stream; a buffered one still refuses", async () => {
  const read: string[] = [];
  await using server = startStreaming(async (exchange) => {
    try {
      const body = exchange.bodyStream();
      let size = 0;
      for await (const piece of body) size += piece.length;
      read.push(`${exchange.method} streamed ${size} of ${body.length}, ${body.received} received`);
    } catch (error) {
      read.push(`${exchange.method} ${(error as Error).message}`);
    }
    exchange.writeText("ok");
  });
  using client = await RawClient.connect(server.port);
  client.send(
    "PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n" +
      "PUT / HTTP/1.1\r\nHost: h\r\n\r\n" +
      "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n" +
      "PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nab",
  );
  const responses = await client.responses(4);
  expect({ statuses: responses.map((response) => response.status), read }).toEqual({
    statuses: [200, 200, 200, 200],
    read: [
      "PUT streamed 0 of 0, 0 received",
      "PUT streamed 0 of 0, 0 received",
      "POST corral: this request's body is buffered: read it with body",
      "PUT streamed 2 of 2, 2 received",
    ],
  });
});

test("a handler that answers without reading its streamed body closes the connection", async () => {
  await using server = startStreaming((exchange) => {
    exchange.setStatus(403);
    exchange.writeText("no");
  });
  using client = await RawClient.connect(server.port);
  client.send("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\nabc");
  const response = await client.response();
  await client.waitForClose();
  expect([response.status, response.header("connection")]).toEqual([403, "close"]);
});

test("streamed and buffered bodies refuse the other reading (TypeError)", async () => {
  const errors: string[] = [];
  await using server = startStreaming((exchange) => {
    try {
      if (exchange.bodyStreamed) void exchange.body;
      else exchange.bodyStream();
    } catch (error) {
      errors.push(`${(error as Error).name}: ${(error as Error).message}`);
    }
    exchange.closeAfterResponse();
  });
  for (const method of ["PUT", "POST"]) {
    using client = await RawClient.connect(server.port);
    client.send(`${method} / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx`);
    await client.response();
  }
  expect(errors).toEqual([
    "TypeError: corral: this request's body is streamed: read it with bodyStream()",
    "TypeError: corral: this request's body is buffered: read it with body",
  ]);
});

test("a streamBodies callback that throws is answered 500 and the connection closes", async () => {
  await using server = startStreaming(
    (exchange) => exchange.writeText("never"),
    {},
    () => {
      throw new Error("boom");
    },
  );
  using client = await RawClient.connect(server.port);
  client.send("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc");
  const response = await client.response();
  await client.waitForClose();
  expect([response.status, response.header("connection"), server.stats().handlerFailures]).toEqual([
    500,
    "close",
    1,
  ]);
});

test("the worker cannot be given back while its window may still receive the streamed body", async () => {
  const seen: string[] = [];
  await using server = startStreaming(async (exchange) => {
    seen.push(`before reading: ${exchange.canReleaseWorker}`);
    try {
      exchange.releaseWorker();
    } catch (error) {
      seen.push((error as Error).name);
    }
    for await (const _piece of exchange.bodyStream());
    seen.push(`after reading: ${exchange.canReleaseWorker}`);
    exchange.writeText("ok");
  });
  using client = await RawClient.connect(server.port);
  client.send(
    "PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
  );
  expect((await client.response()).status).toBe(200);
  expect(seen).toEqual(["before reading: false", "TypeError", "after reading: true"]);
});

test("a streamed body over the limit after a response head went out closes, without a second answer", async () => {
  let failure = "";
  await using server = startStreaming(
    async (exchange) => {
      const stream = exchange.stream();
      stream.writeText("started");
      await stream.flush();
      try {
        for await (const _piece of exchange.bodyStream());
      } catch (error) {
        failure = (error as Error).name;
      }
    },
    { maxStreamedBodyBytes: 10 },
  );
  using client = await RawClient.connect(server.port);
  client.send("PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n");
  await client.waitFor(() => client.receivedText.includes("started"), "the streamed head");
  client.send("b\r\nhello world\r\n0\r\n\r\n");
  await client.waitForClose();
  await waitUntil(() => failure !== "", "the read to reject");
  expect({
    answers: client.receivedText.split("HTTP/1.1 ").length - 1,
    has413: client.receivedText.includes("413"),
    failure,
    errors: server.stats().errors,
  }).toEqual({
    answers: 1,
    has413: false,
    failure: "ClientGoneError",
    errors: { bodyTooLarge: 1 },
  });
});

/** Reads the streamed body to its end and answers `received N`. */
const countingHandler: Handler = async (exchange) => {
  let received = 0;
  for await (const piece of exchange.bodyStream()) received += piece.length;
  exchange.writeText(`received ${received}`);
};

test("a stall of the server's own process is not charged to the uploader: progress read after it counts", async () => {
  await using server = startStreaming(countingHandler, {
    bodyDeadlineMs: 200,
    sweepIntervalMs: 5,
    requestDeadlineMs: 60_000,
  });
  using uploader = await RawClient.connect(server.port);
  uploader.send("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 2000\r\n\r\n");
  await waitUntil(() => server.stats().bytesIn > 0, "the head to be read");
  await Bun.sleep(20);
  // The first piece reaches the server's socket at once, but this process (client and server
  // alike) is then blocked for twice the body deadline, as a long collection or a starved CPU
  // would block it. The piece is read after the stall, so the upload moved: no 408.
  uploader.send("y".repeat(1000));
  const blockedUntil = performance.now() + 400;
  while (performance.now() < blockedUntil);
  await waitUntil(() => server.stats().bytesStreamedIn === 1000, "the first piece");
  await Bun.sleep(50);
  uploader.send("y".repeat(1000));
  const answer = await uploader.response();
  expect({
    answer: `${answer.status} ${answer.text}`,
    bodyDeadlines: server.stats().deadlineCloses.body,
  }).toEqual({ answer: "200 received 2000", bodyDeadlines: 0 });
});

test("a slow but moving uploader is not cut off: the body deadline counts from the last progress", async () => {
  await using server = startStreaming(countingHandler, {
    bodyDeadlineMs: 300,
    sweepIntervalMs: 20,
    requestDeadlineMs: 60_000,
  });
  using uploader = await RawClient.connect(server.port);
  uploader.send("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 10000\r\n\r\n");
  // Ten pieces, each after the last was read: the whole upload takes several body deadlines,
  // but no gap between two pieces comes near one.
  for (let piece = 1; piece <= 10; piece++) {
    uploader.send("y".repeat(1000));
    await waitUntil(() => server.stats().bytesStreamedIn === piece * 1000, `piece ${piece}`);
    await Bun.sleep(100);
  }
  const answer = await uploader.response();
  expect({
    answer: `${answer.status} ${answer.text}`,
    bodyDeadlines: server.stats().deadlineCloses.body,
  }).toEqual({ answer: "200 received 10000", bodyDeadlines: 0 });
});
