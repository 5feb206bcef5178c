import { expect, test } from "bun:test";
import { App, middleware } from "corral";
import { compress, contentTag, etag } from "corral/middleware";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const body = "the same content";
const tag = contentTag(new TextEncoder().encode(body));

function etagApp() {
  const app = new App({ shared: {} }).use(etag());
  app.get("/", (ctx) => ctx.response.text(200, body));
  app.get("/own", (ctx) => {
    ctx.response.header("ETag", 'W/"v7"');
    ctx.response.header("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT");
    ctx.response.text(200, body);
  });
  app.post("/", (ctx) => ctx.response.text(200, body));
  app.get("/stream", async (ctx) => {
    await ctx.response.stream(200, "text/plain").writer().writeAll(body);
  });
  return app;
}

test("a strong ETag of the content; If-None-Match (list, *, weak) is a 304 on the wire", async () => {
  const app = etagApp();
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  const conditions = [
    "",
    `If-None-Match: ${tag}\r\n`,
    `If-None-Match: "other", W/${tag}\r\n`,
    "If-None-Match: *\r\n",
    'If-None-Match: "other"\r\n',
    'If-Match: "other"\r\n',
    `If-Match: ${tag}\r\nIf-None-Match: ${tag}\r\n`,
  ];
  client.send(
    conditions
      .map((condition, index) => {
        const close = index === conditions.length - 1 ? "Connection: close\r\n" : "";
        return `GET / HTTP/1.1\r\nHost: h\r\n${condition}${close}\r\n`;
      })
      .join(""),
  );
  const responses = await client.responses(conditions.length);
  expect(
    responses.map((response) => [response.status, response.header("etag"), response.text]),
  ).toEqual([
    [200, tag, body],
    [304, tag, ""],
    [304, tag, ""],
    [304, tag, ""],
    [200, tag, body],
    [412, undefined, "Precondition Failed\n"],
    [304, tag, ""],
  ]);
  await app.stop();
});

test("the handler's own ETag and Last-Modified count; POST, HEAD and streams as RFC 9110 says", async () => {
  const app = etagApp();
  const own = await app.request("/own", { headers: { "if-none-match": '"v7"' } });
  const modified = await app.request("/own", {
    headers: { "if-modified-since": "Sun, 06 Nov 1994 08:49:37 GMT" },
  });
  const post = await app.request("/", { method: "POST", headers: { "if-none-match": tag } });
  const head = await app.request("/", { method: "HEAD", headers: { "if-none-match": tag } });
  const stream = await app.request("/stream", { headers: { "if-none-match": "*" } });
  expect([
    [own.status, own.headers.get("etag")],
    [modified.status, modified.headers.get("etag")],
    [post.status, post.headers.get("etag")],
    [head.status, head.headers.get("etag")],
    [stream.status, stream.headers.get("etag"), await stream.text()],
  ]).toEqual([
    [304, 'W/"v7"'],
    [304, 'W/"v7"'],
    [200, null],
    [304, tag],
    [200, null, body],
  ]);
  await app.stop();
});

test("a 304 leaves out Content-Type, Content-Encoding and Content-Language (RFC 9110 §15.4.5)", async () => {
  const app = new App({ shared: {}, log: null }).use(etag()).use(compress());
  app.get("/page", (ctx) => {
    ctx.response.header("Cache-Control", "max-age=60");
    ctx.response.header("Content-Language", "en");
    ctx.response.header("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT");
    ctx.response.text(200, "p".repeat(3000));
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  const request = (condition: string) =>
    `GET /page HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip\r\n${condition}\r\n`;
  client.send(request(""));
  const [first] = await client.responses(1);
  const gzipTag = first!.header("etag")!;
  client.send(
    request(`If-None-Match: ${gzipTag}\r\n`) +
      request(`If-None-Match: W/${gzipTag}\r\nConnection: close\r\n`),
  );
  const revalidated = await client.responses(3);
  const withoutDate = (headers: ReadonlyArray<readonly [string, string]>) =>
    headers.filter(([name]) => name !== "date" && name !== "connection");
  const expected: Array<readonly [string, string]> = [
    ["cache-control", "max-age=60"],
    ["last-modified", "Sun, 06 Nov 1994 08:49:37 GMT"],
    ["vary", "Accept-Encoding"],
    ["etag", gzipTag],
  ];
  expect([
    first!.header("content-encoding"),
    first!.header("content-language"),
    ...revalidated.slice(1).map((response) => [response.status, withoutDate(response.headers)]),
  ]).toEqual(["gzip", "en", [304, expected], [304, expected]]);
  await app.stop();
});

test("a stream finished by its handler passes through etag() without a failure; outer hooks run", async () => {
  const failures: unknown[] = [];
  const outer: string[] = [];
  const app = new App({ shared: {}, log: { error: (entry) => failures.push(entry) } })
    .use(middleware({ after: (ctx) => void outer.push(`after ${ctx.response.status}`) }))
    .use(etag());
  app.get("/finished", async (ctx) => {
    const stream = ctx.response.stream(200, "text/plain");
    await stream.writer().writeAll(body);
    await stream.finish();
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /finished HTTP/1.1\r\nHost: h\r\nIf-None-Match: *\r\n\r\n");
  const response = await client.response();
  expect([response.status, response.header("etag"), response.text]).toEqual([200, undefined, body]);
  await Bun.sleep(20);
  expect([outer, failures, app.stats().handlerFailures]).toEqual([["after 200"], [], 0]);
  await app.stop();
});
