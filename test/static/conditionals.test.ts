import { expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, rawRequest, serveFiles } from "./support/static-fixture.ts";

const modified = new Date("2026-01-02T03:04:05Z");
const modifiedText = "Fri, 02 Jan 2026 03:04:05 GMT";
const earlier = "Thu, 01 Jan 2026 00:00:00 GMT";

async function setup() {
  const fixture = makeFixture();
  utimesSync(join(fixture.root, "a.txt"), modified, modified);
  const server = serveFiles({ root: fixture.root });
  const plain = await rawRequest(server.port, "/files/a.txt");
  return {
    port: server.port,
    etag: plain.header("etag")!,
    plain,
    async [Symbol.asyncDispose]() {
      await server[Symbol.asyncDispose]();
      fixture[Symbol.dispose]();
    },
  };
}

test("a file has a strong ETag from its size and modification time, Last-Modified, and its validators in every answer", async () => {
  await using files = await setup();
  const { plain, etag } = files;
  expect({
    status: plain.status,
    etag: /^"6-[0-9a-f]+"$/.test(etag),
    lastModified: plain.header("last-modified"),
    type: plain.header("content-type"),
    length: plain.header("content-length"),
    acceptRanges: plain.header("accept-ranges"),
    cacheControl: plain.header("cache-control"),
    vary: plain.header("vary"),
    body: plain.text,
  }).toEqual({
    status: 200,
    etag: true,
    lastModified: modifiedText,
    type: "text/plain; charset=utf-8",
    length: "6",
    acceptRanges: "bytes",
    cacheControl: "no-cache",
    vary: "Accept-Encoding",
    body: "hello\n",
  });
});

test("each conditional in RFC 9110 §13.2.2 order: 412 for If-Match and If-Unmodified-Since, 304 for If-None-Match and If-Modified-Since", async () => {
  await using files = await setup();
  const { port, etag } = files;
  const weak = `W/${etag}`;
  const cases: Array<[string, Record<string, string>]> = [
    ["If-None-Match same", { "If-None-Match": etag }],
    ["If-None-Match weak form", { "If-None-Match": weak }],
    ["If-None-Match in a list", { "If-None-Match": `"other", ${etag}` }],
    ["If-None-Match *", { "If-None-Match": "*" }],
    ["If-None-Match other", { "If-None-Match": '"other"' }],
    ["If-Modified-Since same", { "If-Modified-Since": modifiedText }],
    ["If-Modified-Since earlier", { "If-Modified-Since": earlier }],
    ["If-Modified-Since bad date", { "If-Modified-Since": "yesterday" }],
    [
      "IMS ignored with If-None-Match",
      { "If-None-Match": '"other"', "If-Modified-Since": modifiedText },
    ],
    ["If-Match same", { "If-Match": etag }],
    ["If-Match *", { "If-Match": "*" }],
    ["If-Match other", { "If-Match": '"other"' }],
    ["If-Match weak (strong comparison)", { "If-Match": weak }],
    ["If-Unmodified-Since earlier", { "If-Unmodified-Since": earlier }],
    ["If-Unmodified-Since same", { "If-Unmodified-Since": modifiedText }],
    ["IUS ignored with If-Match", { "If-Match": etag, "If-Unmodified-Since": earlier }],
    ["If-Match fails before If-None-Match", { "If-Match": '"other"', "If-None-Match": etag }],
  ];
  const answers: Array<[string, number, string]> = [];
  for (const [name, headers] of cases) {
    const response = await rawRequest(port, "/files/a.txt", headers);
    answers.push([name, response.status, response.text]);
  }
  expect(answers).toEqual([
    ["If-None-Match same", 304, ""],
    ["If-None-Match weak form", 304, ""],
    ["If-None-Match in a list", 304, ""],
    ["If-None-Match *", 304, ""],
    ["If-None-Match other", 200, "hello\n"],
    ["If-Modified-Since same", 304, ""],
    ["If-Modified-Since earlier", 200, "hello\n"],
    ["If-Modified-Since bad date", 200, "hello\n"],
    ["IMS ignored with If-None-Match", 200, "hello\n"],
    ["If-Match same", 200, "hello\n"],
    ["If-Match *", 200, "hello\n"],
    ["If-Match other", 412, "Precondition Failed\n"],
    ["If-Match weak (strong comparison)", 412, "Precondition Failed\n"],
    ["If-Unmodified-Since earlier", 412, "Precondition Failed\n"],
    ["If-Unmodified-Since same", 200, "hello\n"],
    ["IUS ignored with If-Match", 200, "hello\n"],
    ["If-Match fails before If-None-Match", 412, "Precondition Failed\n"],
  ]);
});

test("a 304 carries the validators, Cache-Control and Vary of the 200, and no body or Content-Length", async () => {
  await using files = await setup();
  const response = await rawRequest(files.port, "/files/a.txt", { "If-None-Match": files.etag });
  expect(response.headers.filter(([name]) => name !== "date")).toEqual([
    ["etag", files.etag],
    ["last-modified", modifiedText],
    ["cache-control", "no-cache"],
    ["vary", "Accept-Encoding"],
    ["connection", "close"],
  ]);
});

test("HEAD answers the headers of GET, with the length and no body, for files and 304s", async () => {
  await using files = await setup();
  const whole = await rawRequest(files.port, "/files/a.txt", {}, "HEAD");
  const notModified = await rawRequest(
    files.port,
    "/files/a.txt",
    { "If-None-Match": files.etag },
    "HEAD",
  );
  expect([
    [whole.status, whole.header("content-length"), whole.header("etag"), whole.text],
    [notModified.status, notModified.header("content-length"), notModified.text],
  ]).toEqual([
    [200, "6", files.etag, ""],
    [304, undefined, ""],
  ]);
});

test("HEAD ignores Range (RFC 9110 §14.2: ranges are GET's): the head of the whole file, 200", async () => {
  await using files = await setup();
  const heads: Array<[string, number, Array<readonly [string, string]>, string]> = [];
  for (const range of ["bytes=1-2", "bytes=0-0, 4-5", "bytes=100-"]) {
    const response = await rawRequest(files.port, "/files/a.txt", { Range: range }, "HEAD");
    const headers = response.headers.filter(([name]) => name !== "date");
    heads.push([range, response.status, headers, response.text]);
  }
  const head = [
    ["etag", files.etag],
    ["last-modified", modifiedText],
    ["cache-control", "no-cache"],
    ["vary", "Accept-Encoding"],
    ["accept-ranges", "bytes"],
    ["content-type", "text/plain; charset=utf-8"],
    ["content-length", "6"],
    ["connection", "close"],
  ] as const;
  expect(heads).toEqual([
    ["bytes=1-2", 200, [...head], ""],
    ["bytes=0-0, 4-5", 200, [...head], ""],
    ["bytes=100-", 200, [...head], ""],
  ]);
});

test("content types come from extensions, text with charset=utf-8, unknown names as bytes", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root });
  const types: Array<string | undefined> = [];
  for (const target of [
    "/files/",
    "/files/data.json",
    "/files/image.png",
    "/files/noext",
    "/files/empty.txt",
  ]) {
    types.push((await rawRequest(server.port, target)).header("content-type"));
  }
  expect(types).toEqual([
    "text/html; charset=utf-8",
    "application/json; charset=utf-8",
    "image/png",
    "application/octet-stream",
    "text/plain; charset=utf-8",
  ]);
});

test("Cache-Control: immutable for hashed names and no-cache otherwise by default; a string or a function replaces it", async () => {
  using fixture = makeFixture();
  await Bun.write(join(fixture.root, "app.3f9a8c1d.js"), "x");
  await using byDefault = serveFiles({ root: fixture.root });
  await using fixed = serveFiles({ root: fixture.root, cacheControl: "public, max-age=60" });
  await using byFunction = serveFiles({
    root: fixture.root,
    cacheControl: (file) => (file.contentType.startsWith("text/html") ? "no-store" : undefined),
  });
  const read = async (port: number, target: string) =>
    (await rawRequest(port, target)).header("cache-control");
  expect([
    await read(byDefault.port, "/files/app.3f9a8c1d.js"),
    await read(byDefault.port, "/files/a.txt"),
    await read(fixed.port, "/files/a.txt"),
    await read(byFunction.port, "/files/"),
    await read(byFunction.port, "/files/a.txt"),
  ]).toEqual([
    "public, max-age=31536000, immutable",
    "no-cache",
    "public, max-age=60",
    "no-store",
    undefined,
  ]);
});

test("a file changed between two requests is served changed, with a new ETag", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root });
  const before = await rawRequest(server.port, "/files/a.txt");
  await Bun.write(join(fixture.root, "a.txt"), "changed!\n");
  utimesSync(join(fixture.root, "a.txt"), modified, new Date(modified.getTime() + 5000));
  const after = await rawRequest(server.port, "/files/a.txt", {
    "If-None-Match": before.header("etag")!,
  });
  expect([after.status, after.text, after.header("etag") !== before.header("etag")]).toEqual([
    200,
    "changed!\n",
    true,
  ]);
});
