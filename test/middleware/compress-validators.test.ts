import { expect, test } from "bun:test";
import { App, evaluatePreconditions, HttpError } from "corral";
import { compress, etag } from "corral/middleware";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

/** A note with a version tag, its handlers evaluating their own preconditions (guide, "etag"). */
function notesApp() {
  let version = 1;
  const text = "n".repeat(2000);
  const tagOf = () => `"v${version}"`;
  const app = new App({ shared: {}, log: null }).use(compress());
  app.get("/note", (ctx) => {
    const header = (name: string) => ctx.request.header(name);
    const result = evaluatePreconditions(ctx.request.method, header, { etag: tagOf() });
    ctx.response.header("ETag", tagOf());
    if (result === "not-modified") ctx.response.setStatus(304);
    else ctx.response.json(200, { version, text });
  });
  app.put("/note", (ctx) => {
    const result = evaluatePreconditions("PUT", (name) => ctx.request.header(name), {
      etag: tagOf(),
    });
    if (result !== "proceed") throw new HttpError(412, "Precondition Failed");
    version++;
    ctx.response.header("ETag", tagOf());
    ctx.response.text(200, "updated\n");
  });
  return app;
}

test("a handler's own preconditions take back the coded tag: 304 with that tag and Vary, If-Match updates", async () => {
  const app = notesApp();
  const cases: Array<[string, Record<string, string>]> = [
    ["GET", { "accept-encoding": "gzip" }],
    ["GET", { "accept-encoding": "gzip", "if-none-match": '"v1-gzip"' }],
    ["GET", { "accept-encoding": "gzip", "if-none-match": 'W/"v1-gzip"' }],
    ["HEAD", { "accept-encoding": "gzip", "if-none-match": '"v1-gzip"' }],
    ["GET", { "accept-encoding": "br", "if-none-match": '"v1-gzip", "v1-br"' }],
    ["GET", { "if-none-match": '"v1"' }],
    ["GET", { "accept-encoding": "gzip", "if-none-match": '"v0-gzip"' }],
    ["PUT", { "if-match": 'W/"v1-gzip"' }],
    ["PUT", { "if-match": '"v1-gzip"' }],
    ["PUT", { "if-match": '"v1-gzip"' }],
    ["PUT", { "if-match": '"v2-br"' }],
    ["GET", { "accept-encoding": "gzip", "if-none-match": '"v2-gzip"' }],
  ];
  const answers = [];
  for (const [method, headers] of cases) {
    const body = method === "PUT" ? "x" : null;
    const response = await app.request("/note", { method, headers, body, decompress: false });
    await response.arrayBuffer();
    answers.push([
      method,
      response.status,
      response.headers.get("etag"),
      response.headers.get("content-encoding"),
      response.headers.get("vary"),
    ]);
  }
  expect(answers).toEqual([
    ["GET", 200, '"v1-gzip"', "gzip", "Accept-Encoding"],
    ["GET", 304, '"v1-gzip"', null, "Accept-Encoding"],
    ["GET", 304, '"v1-gzip"', null, "Accept-Encoding"],
    ["HEAD", 304, '"v1-gzip"', null, "Accept-Encoding"],
    ["GET", 304, '"v1-br"', null, "Accept-Encoding"],
    ["GET", 304, '"v1"', null, null],
    ["GET", 200, '"v1-gzip"', "gzip", "Accept-Encoding"],
    ["PUT", 412, null, null, "Accept-Encoding"],
    ["PUT", 200, '"v2"', null, "Accept-Encoding"],
    ["PUT", 412, null, null, "Accept-Encoding"],
    ["PUT", 200, '"v3"', null, "Accept-Encoding"],
    ["GET", 200, '"v3-gzip"', "gzip", "Accept-Encoding"],
  ]);
  await app.stop();
});

/** One request on its own connection, read whole once the server closes it (HEAD included). */
async function exchange(port: number, method: string, headers: Record<string, string>) {
  using client = await RawClient.connect(port);
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  client.send(`${method} /page HTTP/1.1\r\nHost: h\r\nConnection: close\r\n${lines.join("")}\r\n`);
  await client.waitForClose();
  const text = client.receivedText;
  const head = text.slice(0, text.indexOf("\r\n\r\n")).split("\r\n");
  const fields = head
    .slice(1)
    .filter((line) => !line.startsWith("Date:") && !line.startsWith("Connection:"));
  return { statusLine: head[0], fields, bodyBytes: text.length - text.indexOf("\r\n\r\n") - 4 };
}

test("HEAD carries the header fields of GET under etag() and compress(): coding, length, tag, Vary", async () => {
  const app = new App({ shared: {}, log: null }).use(etag()).use(compress());
  app.get("/page", (ctx) => ctx.response.text(200, "p".repeat(3000)));
  const server = listenQuietly(app);
  const gzip = { "Accept-Encoding": "gzip" };
  const get = await exchange(server.port, "GET", gzip);
  const head = await exchange(server.port, "HEAD", gzip);
  const tag = get.fields.find((line) => line.startsWith("ETag: "))!.slice(6);
  const revalidated = await exchange(server.port, "HEAD", { ...gzip, "If-None-Match": tag });
  const identity = await exchange(server.port, "HEAD", {});
  expect([get.bodyBytes > 0, head.bodyBytes, head.fields]).toEqual([true, 0, get.fields]);
  expect(head.fields).toEqual([
    "Vary: Accept-Encoding",
    "Content-Encoding: gzip",
    `ETag: ${tag}`,
    "Content-Type: text/plain; charset=utf-8",
    `Content-Length: ${get.bodyBytes}`,
  ]);
  expect([revalidated.statusLine, revalidated.fields]).toEqual([
    "HTTP/1.1 304 Not Modified",
    ["Vary: Accept-Encoding", `ETag: ${tag}`],
  ]);
  expect(identity.fields.filter((line) => !line.startsWith("ETag: "))).toEqual([
    "Vary: Accept-Encoding",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Length: 3000",
  ]);
  await app.stop();
});
