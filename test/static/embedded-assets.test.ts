import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, EmbeddedAssets, serveStatic } from "corral";
import { listenQuietly } from "../support/listen-quietly.ts";
import { makeFixture, rawRequest, secretText } from "./support/static-fixture.ts";

const script = "export const greeting = 'hello';\n".repeat(200);

async function serveAssets(assets: EmbeddedAssets) {
  const app = new App({ shared: {} });
  serveStatic({ assets }).mount(app, "/files");
  const server = listenQuietly(app);
  return Object.assign(server, {
    app,
    async [Symbol.asyncDispose]() {
      await app.stop({ graceMs: 100 });
    },
  });
}

test("a folder read at startup: content-hash ETags, variants made when missing, bodies borrowed, the same path rules", async () => {
  using fixture = makeFixture();
  writeFileSync(join(fixture.root, "app.js"), script);
  const assets = await EmbeddedAssets.fromFolder(fixture.root);
  await using server = await serveAssets(assets);
  const plain = await rawRequest(server.port, "/files/app.js");
  const br = await rawRequest(server.port, "/files/app.js", { "Accept-Encoding": "br" });
  const gzip = await rawRequest(server.port, "/files/app.js", { "Accept-Encoding": "gzip" });
  const decoded = new TextDecoder().decode(Bun.gunzipSync(gzip.body as Uint8Array<ArrayBuffer>));
  const notModified = await rawRequest(server.port, "/files/app.js", {
    "If-None-Match": plain.header("etag")!,
  });
  const range = await rawRequest(server.port, "/files/app.js", { Range: "bytes=7-11" });
  const statuses: number[] = [];
  for (const target of [
    "/files/.env",
    "/files/out.txt",
    "/files/%2e%2e/secret.txt",
    "/files/..%2fsecret.txt",
    "/files/sub",
    "/files/sub/",
    "/files/link.txt",
  ]) {
    const response = await rawRequest(server.port, target);
    statuses.push(response.status);
    expect(response.text.includes(secretText)).toBe(false);
  }
  expect({
    etag: /^"[A-Za-z0-9_-]{22}"$/.test(plain.header("etag")!),
    plain: [plain.status, plain.text === script, plain.header("last-modified")],
    br: [
      br.header("content-encoding"),
      br.body.length < script.length / 10,
      br.header("etag") !== plain.header("etag"),
    ],
    gzip: [gzip.header("content-encoding"), decoded === script],
    notModified: notModified.status,
    range: [range.status, range.text, range.header("content-range")],
    statuses,
    borrowed: server.app.stats().bytesBorrowed > 0,
  }).toEqual({
    etag: true,
    plain: [200, true, undefined],
    br: ["br", true, true],
    gzip: ["gzip", true],
    notModified: 304,
    range: [206, "const", `bytes 7-11/${script.length}`],
    statuses: [404, 404, 404, 404, 308, 200, 200],
    borrowed: true,
  });
});

test("named files: a name that is not canonical is a TypeError; more than maxTotalBytes is a RangeError", async () => {
  const base = mkdtempSync(join(tmpdir(), "corral-assets-"));
  try {
    writeFileSync(join(base, "page.html"), "<p>page</p>");
    const errors: string[] = [];
    for (const name of ["../page.html", "a//b.html", ".env", "a/./b"]) {
      await EmbeddedAssets.fromFiles({ [name]: join(base, "page.html") }).catch((error: Error) =>
        errors.push(`${error.name}: ${error.message}`),
      );
    }
    await EmbeddedAssets.fromFiles(
      { "page.html": join(base, "page.html") },
      { maxTotalBytes: 5 },
    ).catch((error: Error) => errors.push(`${error.name}: ${error.message}`));
    const assets = await EmbeddedAssets.fromFiles({ "page.html": new Blob(["<p>blob</p>"]) });
    await using server = await serveAssets(assets);
    const page = await rawRequest(server.port, "/files/page.html");
    expect({ errors, page: [page.status, page.header("content-type"), page.text] }).toEqual({
      errors: [
        'TypeError: corral: the asset name "../page.html" is not a canonical path (dot-segment)',
        'TypeError: corral: the asset name "a//b.html" is not a canonical path (empty-segment)',
        'TypeError: corral: the asset name ".env" is not a canonical path (dotfile)',
        'TypeError: corral: the asset name "a/./b" is not a canonical path (dot-segment)',
        "RangeError: corral: embedded assets reach 11 bytes, over maxTotalBytes 5",
      ],
      page: [200, "text/html; charset=utf-8", "<p>blob</p>"],
    });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("a compiled executable serves its embedded assets from an empty folder", async () => {
  const base = mkdtempSync(join(tmpdir(), "corral-compiled-"));
  try {
    mkdirSync(join(base, "public"));
    mkdirSync(join(base, "empty"));
    writeFileSync(join(base, "public", "index.html"), "<h1>embedded</h1>\n");
    writeFileSync(join(base, "public", "app.js"), script);
    writeFileSync(join(base, "page.html"), "<p>imported</p>\n");
    writeFileSync(
      join(base, "main.ts"),
      [
        `import { App, EmbeddedAssets, serveStatic } from ${JSON.stringify(join(import.meta.dir, "../../src/index.ts"))};`,
        `import pagePath from "./page.html" with { type: "file" };`,
        "const app = new App({ shared: {} });",
        `serveStatic({ assets: await EmbeddedAssets.fromFiles({ "page.html": pagePath }) }).mount(app, "/imported");`,
        `serveStatic({ assets: await EmbeddedAssets.fromBundle("public") }).mount(app, "/");`,
        "const server = app.listen({ port: 0 });",
        `console.log("listening", server.port);`,
      ].join("\n"),
    );
    const build = Bun.spawnSync(
      ["bun", "build", "--compile", "main.ts", "--asset", "public", "--outfile", "server"],
      { cwd: base, stderr: "pipe", stdout: "pipe" },
    );
    expect(build.exitCode).toBe(0);
    const child = Bun.spawn([join(base, "server")], {
      cwd: join(base, "empty"),
      stdout: "pipe",
      stderr: "inherit",
    });
    try {
      const reader = child.stdout.getReader();
      let output = "";
      while (!/listening \d+/.test(output)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the executable exited: ${output}`);
        output += new TextDecoder().decode(value);
      }
      const port = Number(/listening (\d+)/.exec(output)![1]);
      const index = await rawRequest(port, "/");
      const app = await rawRequest(port, "/app.js", { "Accept-Encoding": "br" });
      const imported = await rawRequest(port, "/imported/page.html");
      const traversal = await rawRequest(port, "/..%2fmain.ts");
      expect({
        index: [index.status, index.text, index.header("content-type")],
        app: [app.status, app.header("content-encoding")],
        imported: [imported.status, imported.text],
        traversal: traversal.status,
      }).toEqual({
        index: [200, "<h1>embedded</h1>\n", "text/html; charset=utf-8"],
        app: [200, "br"],
        imported: [200, "<p>imported</p>\n"],
        traversal: 404,
      });
    } finally {
      child.kill();
      await child.exited;
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}, 30_000);

test('one page on one route: handler("/") on GET / serves the embedded index.html with its ETag and variants', async () => {
  const page = `<!doctype html><title>todos</title>${"<li>item</li>".repeat(100)}`;
  const files = serveStatic({
    assets: await EmbeddedAssets.fromFiles({ "index.html": new Blob([page]) }),
  });
  const app = new App({ shared: {} });
  app.route("GET", "/", files.handler("/"));
  app.route("POST", "/api/todos", (ctx) => ctx.response.json(201, { ok: true }));
  const server = listenQuietly(app);
  try {
    const home = await rawRequest(server.port, "/");
    const br = await rawRequest(server.port, "/", { "Accept-Encoding": "br" });
    const again = await rawRequest(server.port, "/", { "If-None-Match": home.header("etag")! });
    const other = await rawRequest(server.port, "/other");
    expect({
      home: [
        home.status,
        home.text === page,
        home.header("content-type"),
        home.header("cache-control"),
      ],
      br: [br.header("content-encoding"), br.header("vary")],
      again: again.status,
      other: other.status,
    }).toEqual({
      home: [200, true, "text/html; charset=utf-8", "no-cache"],
      br: ["br", "Accept-Encoding"],
      again: 304,
      other: 404,
    });
  } finally {
    await app.stop({ graceMs: 100 });
  }
});
