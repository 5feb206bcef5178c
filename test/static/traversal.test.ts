import { expect, test } from "bun:test";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import {
  makeFixture,
  rawRequest,
  secretText,
  serveFiles,
  statusesOf,
} from "./support/static-fixture.ts";

// Every form from the advisories against Hono serveStatic (%2F, //, %5C), @fastify/static (%2F,
// .., non-canonical paths, . and //, listings), send (root prefix), and the rest of the rules.
const refused = [
  "/files/../secret.txt",
  "/files/sub/../../secret.txt",
  "/files/./a.txt",
  "/files/sub/./page.txt",
  "/files/%2e%2e/secret.txt",
  "/files/%2E%2E/secret.txt",
  "/files/.%2e/secret.txt",
  "/files/%2e/a.txt",
  "/files/..%2fsecret.txt",
  "/files/..%2Fsecret.txt",
  "/files/sub%2f..%2f..%2fsecret.txt",
  "/files/sub%2Fpage.txt",
  "/files/..%5csecret.txt",
  "/files/..%5Csecret.txt",
  "/files/sub%5cpage.txt",
  "/files//secret.txt",
  "/files//a.txt",
  "/files/sub//page.txt",
  "/files/a.txt%00",
  "/files/a.txt%00.html",
  "/files/%00",
  "/files/%252e%252e/secret.txt",
  "/files/%252e%252e%252fsecret.txt",
  "/files/sub%252fpage.txt",
  "/files/%25%32%65%25%32%65/secret.txt",
  "/files/../public-private/x.txt",
  "/files/..%2fpublic-private%2fx.txt",
  "/files-private/x.txt",
  "/files/.env",
  "/files/%2eenv",
  "/files/%2Eenv",
  "/files/.git/config",
  "/files/sub/.hidden",
  "/files/%252eenv",
  "/files/out.txt",
  "/files/outdir/secret.txt",
  "/files/outdir/public-private/x.txt",
  "/files/dotlink.txt",
  "/files/a.txt/",
  "/files/empty/",
  "/files/missing.txt",
  "/files/%0a",
  "/files/a.txt%0d%0aX-Injected:%201",
  "http://h/files/../secret.txt",
];

test("every traversal form is a 404 over raw TCP, and no byte from outside the folder leaks", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root });
  const answers: Array<[string, number]> = [];
  const leaked: string[] = [];
  for (const target of refused) {
    const response = await rawRequest(server.port, target);
    answers.push([target, response.status]);
    if (response.text.includes(secretText)) leaked.push(target);
  }
  expect({ answers, leaked }).toEqual({
    answers: refused.map((target) => [target, 404]),
    leaked: [],
  });
});

test("targets that are not well-formed (raw backslash, space, NUL, non-ASCII, bad escapes, bad UTF-8) are a 400", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root });
  const statuses: number[] = [];
  for (const target of [
    "/files/..\\secret.txt",
    "/files/a b",
    "/files/a\u0000",
    "/files/caf\u00e9.txt",
    "/files/%",
    "/files/%zz",
    "/files/%C3%28.txt",
  ]) {
    using client = await RawClient.connect(server.port);
    client.send(`GET ${target} HTTP/1.1\r\nHost: h\r\n\r\n`);
    statuses.push((await client.response()).status);
  }
  expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400]);
});

test("a symlink inside the folder to a file or a folder inside it is served", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root });
  const link = await rawRequest(server.port, "/files/link.txt");
  const linkedFolder = await rawRequest(server.port, "/files/linkdir/page.txt");
  expect([link.status, link.text, linkedFolder.status, linkedFolder.text]).toEqual([
    200,
    "hello\n",
    200,
    "sub page\n",
  ]);
});

test("names with spaces, %, #, an escape-like name and non-ASCII characters are served by their encoded names", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root });
  const targets = [
    "/files/with%20space.txt",
    "/files/100%25.txt",
    "/files/hash%23.txt",
    "/files/caf%C3%A9.txt",
    "/files/%E6%97%A5%E6%9C%AC.txt",
    "/files/a%252eb.txt",
  ];
  const answers: Array<[number, string]> = [];
  for (const target of targets) {
    const response = await rawRequest(server.port, target);
    answers.push([response.status, response.text]);
  }
  expect(answers).toEqual([
    [200, "space\n"],
    [200, "percent\n"],
    [200, "hash\n"],
    [200, "accent\n"],
    [200, "nihon\n"],
    [200, "literal escape\n"],
  ]);
});

test("dotfiles are served only when the App opts in, and symlinks out stay refused even then", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root, allowDotfiles: true });
  const statuses = await statusesOf(server.port, [
    "/files/.env",
    "/files/sub/.hidden",
    "/files/out.txt",
    "/files/../secret.txt",
  ]);
  expect(statuses).toEqual([200, 200, 404, 404]);
});

test("with windowsNames, alternate streams, 8.3 short names, device names and trailing dots are 404", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root, windowsNames: true });
  const statuses = await statusesOf(server.port, [
    "/files/a.txt::$DATA",
    "/files/a.txt%3A%3A%24DATA",
    "/files/PUBLIC~1/a.txt",
    "/files/con",
    "/files/NUL.txt",
    "/files/a.txt.",
    "/files/a.txt%20",
    "/files/a.txt",
  ]);
  expect(statuses).toEqual([404, 404, 404, 404, 404, 404, 404, 200]);
});

test("a directory without its slash is a 308 to it; with it, its index.html; never a listing", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root });
  const answers = [];
  for (const target of [
    "/files",
    "/files?x=1",
    "/files/sub",
    "/files/sub?y=2",
    "/files/",
    "/files/sub/",
    "/files/empty/",
  ]) {
    const response = await rawRequest(server.port, target);
    answers.push([response.status, response.header("location"), response.text]);
  }
  expect(answers).toEqual([
    [308, "/files/", ""],
    [308, "/files/?x=1", ""],
    [308, "/files/sub/", ""],
    [308, "/files/sub/?y=2", ""],
    [200, undefined, "<h1>home</h1>\n"],
    [200, undefined, "<h1>sub</h1>\n"],
    [404, undefined, "Not Found\n"],
  ]);
});

test("hostile clients probing traversal on many connections leave a side client served", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root });
  const hostile = await Promise.all(
    Array.from({ length: 8 }, async () => {
      using client = await RawClient.connect(server.port);
      const burst = refused
        .filter((target) => !target.startsWith("http:"))
        .map((target) => `GET ${target} HTTP/1.1\r\nHost: h\r\n\r\n`)
        .join("");
      client.send(burst);
      const responses = await client.responses(refused.length - 1);
      return responses.filter((response) => response.status !== 404).length;
    }),
  );
  const side = await rawRequest(server.port, "/files/a.txt");
  expect({ hostile, side: [side.status, side.text] }).toEqual({
    hostile: Array(8).fill(0),
    side: [200, "hello\n"],
  });
});
