import { expect, test } from "bun:test";
import { App, EventChannel, serverSentEvents } from "corral";
import { compress, etag, skipCompression } from "corral/middleware";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { decodeCoding } from "../support/decode-coding.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const json = JSON.stringify(
  Array.from({ length: 300 }, (_, id) => ({ id, title: `todo ${id}`, done: id % 2 === 0 })),
);

function compressApp() {
  const app = new App({ shared: {}, limits: { stagingBytes: 512 * 1024 } })
    .use(etag())
    .use(compress());
  app.get("/json", (ctx) => ctx.response.json(200, JSON.parse(json)));
  app.get("/size/:bytes", (ctx) => ctx.response.text(200, "a".repeat(Number(ctx.params.bytes))));
  app.get("/image", (ctx) => ctx.response.bytes(200, "image/png", new Uint8Array(4096)));
  app.get("/encoded", (ctx) => {
    ctx.response.header("Content-Encoding", "gzip");
    ctx.response.bytes(200, "application/json", Bun.gzipSync(Buffer.from(json)));
  });
  app.get("/no-transform", (ctx) => {
    ctx.response.header("Cache-Control", "no-transform");
    ctx.response.json(200, JSON.parse(json));
  });
  app.get("/secret", (ctx) => {
    skipCompression(ctx);
    ctx.response.json(200, JSON.parse(json));
  });
  app.get("/large", (ctx) => ctx.response.text(200, json.repeat(20)));
  app.get("/stream", async (ctx) => {
    await ctx.response.stream(200, "application/json").writer().writeAll(json);
  });
  app.get("/stream-with-length", async (ctx) => {
    const length = Buffer.byteLength(json);
    await ctx.response
      .stream(200, "application/json", { contentLength: length })
      .writer()
      .writeAll(json);
  });
  return app;
}

test("negotiates br, zstd and gzip by q-values over the wire; Vary on every compressible answer", async () => {
  const app = compressApp();
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  const accepts = [
    "gzip, deflate, br, zstd",
    "gzip;q=1, br;q=0.5",
    "zstd",
    "identity",
    "br;q=0, gzip;q=0",
    "",
  ];
  client.send(
    accepts
      .map((accept, index) => {
        const line = accept === "" ? "" : `Accept-Encoding: ${accept}\r\n`;
        const close = index === accepts.length - 1 ? "Connection: close\r\n" : "";
        return `GET /json HTTP/1.1\r\nHost: h\r\n${line}${close}\r\n`;
      })
      .join(""),
  );
  const responses = await client.responses(accepts.length);
  expect(
    responses.map((response) => {
      const coding = response.header("content-encoding");
      return [
        coding,
        response.header("vary"),
        decodeCoding(coding, response.body) === json,
        Number(response.header("content-length")) < json.length || coding === undefined,
      ];
    }),
  ).toEqual([
    ["zstd", "Accept-Encoding", true, true],
    ["gzip", "Accept-Encoding", true, true],
    ["zstd", "Accept-Encoding", true, true],
    [undefined, "Accept-Encoding", true, true],
    [undefined, "Accept-Encoding", true, true],
    [undefined, "Accept-Encoding", true, true],
  ]);
  await app.stop();
});

test("the threshold (1 KiB), the type allowlist, HEAD, encoded, no-transform and the opt-out", async () => {
  const app = compressApp();
  const cases: Array<[string, string]> = [
    ["/size/1023", "GET"],
    ["/size/1024", "GET"],
    ["/image", "GET"],
    ["/json", "HEAD"],
    ["/encoded", "GET"],
    ["/no-transform", "GET"],
    ["/secret", "GET"],
    ["/stream", "GET"],
  ];
  const answers = [];
  for (const [path, method] of cases) {
    const response = await app.request(path, { method, headers: { "accept-encoding": "gzip" } });
    answers.push([path, method, response.headers.get("content-encoding")]);
  }
  expect(answers).toEqual([
    ["/size/1023", "GET", null],
    ["/size/1024", "GET", "gzip"],
    ["/image", "GET", null],
    ["/json", "HEAD", "gzip"],
    ["/encoded", "GET", "gzip"],
    ["/no-transform", "GET", null],
    ["/secret", "GET", null],
    ["/stream", "GET", "gzip"],
  ]);
  await app.stop();
});

test("the ETag changes with the coding and still matches If-None-Match (304)", async () => {
  const app = compressApp();
  const gzip = await app.request("/json", { headers: { "accept-encoding": "gzip" } });
  const br = await app.request("/json", { headers: { "accept-encoding": "br" } });
  const plain = await app.request("/json");
  const tags = [gzip, br, plain].map((response) => response.headers.get("etag"));
  expect(new Set(tags).size).toBe(3);
  const again = await app.request("/json", {
    headers: { "accept-encoding": "gzip", "if-none-match": tags[0]! },
  });
  expect<unknown[]>([again.status, again.headers.get("etag"), await again.text()]).toEqual([
    304,
    tags[0],
    "",
  ]);
  await app.stop();
});

test("a large body is compressed off the event loop and arrives whole; fetch decodes it", async () => {
  const app = compressApp();
  const server = listenQuietly(app);
  for (const coding of ["gzip", "br", "zstd"]) {
    const response = await fetch(`http://127.0.0.1:${server.port}/large`, {
      headers: { "accept-encoding": coding },
    });
    expect([response.status, (await response.text()) === json.repeat(20)]).toEqual([200, true]);
  }
  await app.stop();
});

test("app.request() decodes the coding as fetch does, or keeps the bytes with decompress: false", async () => {
  const app = compressApp();
  const decoded = await app.request("/json", { headers: { "accept-encoding": "br" } });
  const raw = await app.request("/json", {
    headers: { "accept-encoding": "br" },
    decompress: false,
  });
  const rawBytes = new Uint8Array(await raw.arrayBuffer());
  expect<unknown[]>([
    decoded.headers.get("content-encoding"),
    (await decoded.text()) === json,
    raw.headers.get("content-encoding"),
    decodeCoding("br", rawBytes) === json,
    rawBytes.length < json.length,
  ]).toEqual(["br", true, "br", true, true]);
  await app.stop();
});

test("a stream is encoded as written: every flush sends what decodes to all written so far", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const app = new App({ shared: {} }).use(compress({ maxEncodedStreams: 1 }));
  app.get("/events", async (ctx) => {
    const writer = ctx.response.stream(200, "text/event-stream").writer();
    await writer.writeAll("data: first\n\n");
    await writer.flush();
    await gate;
    await writer.writeAll("data: second\n\n");
    await writer.flush();
  });
  const encoded = await app.request("/events", { headers: { "accept-encoding": "br, gzip" } });
  // The only encoder slot is taken: a second stream at the same time goes as it is.
  const plain = await app.request("/events", { headers: { "accept-encoding": "gzip" } });
  const reader = encoded.body!.getReader();
  const first = await reader.read();
  const decoder = new TextDecoder();
  const firstText = decoder.decode(first.value);
  release();
  let rest = "";
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    rest += decoder.decode(next.value);
  }
  expect([
    encoded.headers.get("content-encoding"),
    encoded.headers.get("vary"),
    firstText,
    rest,
    plain.headers.get("content-encoding"),
    await plain.text(),
  ]).toEqual([
    "br",
    "Accept-Encoding",
    "data: first\n\n",
    "data: second\n\n",
    null,
    "data: first\n\ndata: second\n\n",
  ]);
  await app.stop();
});

test("server-sent events of a continuation arrive encoded, each event at its flush", async () => {
  const channel = new EventChannel<{ n: number }>({ replayCapacity: 8, maxSubscribers: 4 });
  const app = new App({ shared: {} }).use(compress());
  app.continuation(
    "GET",
    "/events",
    serverSentEvents(channel, { startFrom: "oldest", isLast: (payload) => payload.n === 2 }),
  );
  channel.publish({ n: 1 });
  const response = await app.request("/events", { headers: { "accept-encoding": "zstd" } });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const first = decoder.decode((await reader.read()).value);
  channel.publish({ n: 2 });
  let rest = "";
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    rest += decoder.decode(next.value);
  }
  expect([response.headers.get("content-encoding"), first, rest]).toEqual([
    "zstd",
    'id: 1\ndata: {"n":1}\n\n',
    'id: 2\ndata: {"n":2}\n\n',
  ]);
  await app.stop();
});

test("a stream with a declared length goes as written, never encoded: its length is of those bytes", async () => {
  // Encoded, the body came out shorter than its Content-Length: the client got an empty reply.
  const app = compressApp();
  const server = listenQuietly(app);
  try {
    using client = await RawClient.connect(server.port);
    client.send("GET /stream-with-length HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip\r\n\r\n");
    const answer = await client.response();
    expect([
      answer.status,
      answer.header("content-encoding"),
      answer.header("content-length"),
      answer.text,
    ]).toEqual([200, undefined, String(Buffer.byteLength(json)), json]);
  } finally {
    await app.stop();
  }
});

test("a stream's coding is chosen at its first write: headers and opt-outs set after stream() count, its ETag is suffixed", async () => {
  const misuse: string[] = [];
  const app = new App({ shared: {} }).use(compress());
  app.get("/tagged", async (ctx) => {
    const writer = ctx.response.stream(200, "application/json").writer();
    ctx.response.header("ETag", '"v1"');
    await writer.writeAll(json);
  });
  app.get("/no-transform", async (ctx) => {
    const writer = ctx.response.stream(200, "application/json").writer();
    ctx.response.header("Cache-Control", "no-transform");
    await writer.writeAll(json);
  });
  app.get("/skipped", async (ctx) => {
    const writer = ctx.response.stream(200, "application/json").writer();
    skipCompression(ctx);
    await writer.writeAll(json);
  });
  app.get("/skipped-late", async (ctx) => {
    const writer = ctx.response.stream(200, "application/json").writer();
    await writer.writeAll(json);
    try {
      skipCompression(ctx);
    } catch (error) {
      misuse.push((error as Error).message);
    }
  });
  app.get("/window", async (ctx) => {
    const writer = ctx.response.stream(200, "application/json").writer();
    const bytes = new TextEncoder().encode(json);
    for (let offset = 0; offset < bytes.length; ) {
      let window = writer.stagingWindow();
      if (window.length === 0) {
        await writer.flush();
        window = writer.stagingWindow();
      }
      const count = Math.min(window.length, bytes.length - offset, 1000);
      window.set(bytes.subarray(offset, offset + count));
      writer.commit(count);
      offset += count;
    }
  });
  const server = listenQuietly(app);
  const answers: unknown[] = [];
  for (const path of ["/tagged", "/no-transform", "/skipped", "/skipped-late", "/window"]) {
    using client = await RawClient.connect(server.port);
    client.send(`GET ${path} HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip\r\n\r\n`);
    const answer = await client.response();
    const coding = answer.header("content-encoding");
    answers.push([path, coding, answer.header("etag"), decodeCoding(coding, answer.body) === json]);
  }
  expect(answers).toEqual([
    ["/tagged", "gzip", '"v1-gzip"', true],
    ["/no-transform", undefined, undefined, true],
    ["/skipped", undefined, undefined, true],
    ["/skipped-late", "gzip", undefined, true],
    ["/window", "gzip", undefined, true],
  ]);
  expect(misuse).toEqual([
    "corral: skipCompression() after the stream's first write: compress() chose its coding then; call it before writing",
  ]);
  await app.stop();
});
