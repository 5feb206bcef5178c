import { expect, test } from "bun:test";
import { App, type AppStats, BodyTooLargeError } from "corral";
import { cors, requestId } from "corral/middleware";
import { RawClient, type WireResponse } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const origin = "https://app.example";

/**
 * An App whose buffered bodies stop at 64 bytes and streamed ones at 128, behind cors and
 * requestId: a body over its limit must be answered 413 through them, as any other error is.
 */
function limitedApp(errorFormat: "text" | "problem" = "text") {
  const ran: string[] = [];
  const app = new App({
    shared: {},
    errorFormat,
    log: null,
    limits: { maxBodyBytes: 64, maxStreamedBodyBytes: 128 },
  })
    .use(requestId())
    .use(cors({ origin: [origin] }));
  app.post("/echo", (ctx) => {
    ran.push("echo");
    ctx.response.text(200, `${ctx.request.body.length}`);
  });
  app.route(
    "PUT",
    "/upload",
    async (ctx) => {
      ran.push("upload");
      let size = 0;
      for await (const piece of ctx.request.bodyStream()) size += piece.length;
      ctx.response.text(201, `${size}`);
    },
    { body: "stream" },
  );
  return { app, ran };
}

function post(path: string, body: string, method = "POST"): string {
  return `${method} ${path} HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
}

function chunked(path: string, pieces: readonly string[], method = "POST"): string {
  const chunks = pieces.map((piece) => `${piece.length.toString(16)}\r\n${piece}\r\n`).join("");
  return `${method} ${path} HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`;
}

/** Status, the headers middleware set, Connection, and the body of one answer. */
function summary(response: WireResponse) {
  return {
    status: response.status,
    allowOrigin: response.header("access-control-allow-origin"),
    vary: response.header("vary"),
    requestId: /^[0-9a-f-]{36}$/.test(response.header("x-request-id") ?? ""),
    connection: response.header("connection"),
    text: response.text,
  };
}

/** Sends `request` on its own connection: its answer, once the server closed it (413) or not. */
async function exchangeAlone(port: number, request: string) {
  using client = await RawClient.connect(port);
  client.send(request);
  const response = await client.response();
  if (response.status === 413) await client.waitForClose();
  return summary(response);
}

const tooLarge = (limit: string, bytes: number) => ({
  status: 413,
  allowOrigin: origin,
  vary: "Origin",
  requestId: true,
  connection: "close",
  text: `Content Too Large: the request body is over ${limit} (${bytes} bytes)\n`,
});

test("a buffered body over maxBodyBytes is answered 413 by the App, with the headers middleware set; at the limit it is served", async () => {
  const { app, ran } = limitedApp();
  const server = listenQuietly(app);
  const atLimit = "x".repeat(64);
  const overLimit = "x".repeat(65);
  // At the limit, keep-alive: two answers on one connection.
  using client = await RawClient.connect(server.port);
  client.send(post("/echo", atLimit) + post("/echo", atLimit));
  const served = await client.responses(2);
  expect(served.map((response) => [response.status, response.text])).toEqual([
    [200, "64"],
    [200, "64"],
  ]);
  // Declared one byte over, and decoded one byte over from chunks: the route never runs.
  ran.length = 0;
  expect(await exchangeAlone(server.port, post("/echo", overLimit))).toEqual(
    tooLarge("maxBodyBytes", 64),
  );
  expect(
    await exchangeAlone(server.port, chunked("/echo", ["x".repeat(40), "x".repeat(25)])),
  ).toEqual(tooLarge("maxBodyBytes", 64));
  expect(
    await exchangeAlone(server.port, chunked("/echo", ["x".repeat(40), "x".repeat(24)])),
  ).toEqual({
    ...tooLarge("maxBodyBytes", 64),
    status: 200,
    connection: undefined,
    text: "64",
  });
  expect(ran).toEqual(["echo"]);
  const stats: AppStats = app.stats();
  expect(stats.errors.bodyTooLarge).toBe(2);
  await app.stop();
});

test("a streamed body over maxStreamedBodyBytes is answered 413 by the App: declared, or found while the handler reads", async () => {
  const { app, ran } = limitedApp();
  const server = listenQuietly(app);
  expect(await exchangeAlone(server.port, post("/upload", "y".repeat(129), "PUT"))).toEqual(
    tooLarge("maxStreamedBodyBytes", 128),
  );
  expect(ran).toEqual([]);
  // Chunked: the handler is reading when the limit is passed; its read rejects with the error.
  expect(
    await exchangeAlone(server.port, chunked("/upload", ["y".repeat(100), "y".repeat(29)], "PUT")),
  ).toEqual(tooLarge("maxStreamedBodyBytes", 128));
  expect(ran).toEqual(["upload"]);
  using client = await RawClient.connect(server.port);
  client.send(chunked("/upload", ["y".repeat(100), "y".repeat(28)], "PUT"));
  const response = await client.response();
  expect([response.status, response.text]).toEqual([201, "128"]);
  await app.stop();
});

test("the 413 reaches a client still uploading, which cannot hold the server: a side client is served meanwhile", async () => {
  const { app } = limitedApp("problem");
  const server = listenQuietly(app);
  using uploader = await RawClient.connect(server.port);
  // Declares a mebibyte and sends only part of it: the answer comes without the rest.
  uploader.send(
    `POST /echo HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\nContent-Length: 1048576\r\n\r\n${"z".repeat(4096)}`,
  );
  const refused = await uploader.response();
  expect({
    status: refused.status,
    type: refused.header("content-type"),
    allowOrigin: refused.header("access-control-allow-origin"),
    body: JSON.parse(refused.text),
  }).toEqual({
    status: 413,
    type: "application/problem+json",
    allowOrigin: origin,
    body: {
      type: "about:blank",
      title: "Content Too Large",
      status: 413,
      detail: "the request body is over maxBodyBytes (64 bytes)",
    },
  });
  // The uploader keeps sending: dropped while the connection lingers, never parsed as requests.
  uploader.send("z".repeat(8192));
  uploader.send("GET /echo HTTP/1.1\r\nHost: h\r\n\r\n");
  using side = await RawClient.connect(server.port);
  side.send(post("/echo", "side"));
  const sideAnswer = await side.response();
  expect([sideAnswer.status, sideAnswer.text]).toEqual([200, "4"]);
  await uploader.waitForClose();
  expect(uploader.receivedText.match(/HTTP\/1\.1 /g)?.length).toBe(1);
  await app.stop();
});

test("BodyTooLargeError says its limit and its status", () => {
  const error = new BodyTooLargeError("maxBodyBytes", 64);
  expect([error.name, error.limit, error.limitBytes, error.httpStatus, error.message]).toEqual([
    "BodyTooLargeError",
    "maxBodyBytes",
    64,
    413,
    "the request body is over maxBodyBytes (64 bytes)",
  ]);
});
