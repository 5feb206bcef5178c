import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import {
  createFileServingApp,
  fileServingStagingBytes,
} from "../../examples/file-serving/file-serving-app.ts";
import { makeFixture, rawRequest } from "../static/support/static-fixture.ts";
import { startExample } from "./support/start-example.ts";

const root = `${import.meta.dir}/../..`;
const page = await Bun.file(`${root}/examples/file-serving/index.html`).text();
const asset = await Bun.file(`${root}/examples/file-serving/large-asset.txt`).bytes();

function sha256(bytes: Uint8Array | string): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

test("GET / sends the whole embedded page and the 5 MiB asset with zero staging copy", async () => {
  const app = await createFileServingApp();
  const log = console.log;
  console.log = () => {};
  const server = app.listen({ port: 0 });
  console.log = log;
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\nGET /large-asset.txt HTTP/1.1\r\nHost: h\r\n\r\n");
  const [home, large] = await client.responses(2, 20_000);
  const stats = server.stats();
  expect({
    status: home!.statusLine,
    type: home!.header("content-type"),
    page: home!.text === page,
    largeLength: large!.body.length,
    largeHash: sha256(large!.body),
    stagingLimit: app.limits.stagingBytes,
    copied: stats.bytesCopiedToStaging,
    borrowed: stats.bytesBorrowed,
  }).toEqual({
    status: "HTTP/1.1 200 OK",
    type: "text/html; charset=utf-8",
    page: true,
    largeLength: 5 * 1024 * 1024,
    largeHash: sha256(asset),
    stagingLimit: fileServingStagingBytes,
    copied: 0,
    borrowed: Buffer.byteLength(page) + asset.length,
  });
  await app.stop();
});

test("bun run example file-serving serves the page from a subprocess", async () => {
  await using example = await startExample("file-serving");
  const response = await fetch(example.baseUrl);
  expect([response.status, response.headers.get("content-type"), await response.text()]).toEqual([
    200,
    "text/html; charset=utf-8",
    page,
  ]);
});

test("the compiled file-serving executable serves its page with no source files beside it", async () => {
  const directory = mkdtempSync(`${tmpdir()}/corral-file-serving-`);
  try {
    const executable = `${directory}/file-serving`;
    const build = Bun.spawnSync(
      ["bun", "build", "--compile", "examples/file-serving/main.ts", "--outfile", executable],
      { cwd: root, stdout: "pipe", stderr: "pipe" },
    );
    expect(build.exitCode).toBe(0);
    await using example = await startExample("file-serving", [executable, "--port", "0"], {
      cwd: directory,
    });
    const home = await fetch(example.baseUrl);
    const large = new Uint8Array(
      await (await fetch(`${example.baseUrl}large-asset.txt`)).arrayBuffer(),
    );
    expect([home.status, await home.text(), sha256(large)]).toEqual([200, page, sha256(asset)]);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}, 30_000);

test("--dir D serves the folder's files at /files/<path> with every rule, beside the embedded page", async () => {
  using fixture = makeFixture();
  await using example = await startExample("file-serving", [
    "bun",
    "run",
    "example",
    "file-serving",
    "--port",
    "0",
    "--dir",
    fixture.root,
  ]);
  const file = await rawRequest(example.port, "/files/a.txt");
  const answers = {
    home: (await rawRequest(example.port, "/")).text === page,
    file: [file.status, file.text, file.header("content-type")],
    notModified: (
      await rawRequest(example.port, "/files/a.txt", { "If-None-Match": file.header("etag")! })
    ).status,
    range: (await rawRequest(example.port, "/files/a.txt", { Range: "bytes=1-3" })).text,
    index: (await rawRequest(example.port, "/files/sub/")).text,
    traversal: [
      (await rawRequest(example.port, "/files/..%2fsecret.txt")).status,
      (await rawRequest(example.port, "/files/out.txt")).status,
      (await rawRequest(example.port, "/files/.env")).status,
    ],
  };
  expect(answers).toEqual({
    home: true,
    file: [200, "hello\n", "text/plain; charset=utf-8"],
    notModified: 304,
    range: "ell",
    index: "<h1>sub</h1>\n",
    traversal: [404, 404, 404],
  });
});

test("--dir with something that is not a folder is one line and exit status 2", async () => {
  const child = Bun.spawnSync(
    ["bun", "run", "example", "file-serving", "--port", "0", "--dir", "/no/such/folder"],
    {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  // `bun run` prints the command it runs first; the example's own output is the last two lines.
  const lines = child.stderr.toString().trimEnd().split("\n").slice(-2);
  expect([child.exitCode, lines]).toEqual([
    2,
    [
      '--dir "/no/such/folder" is not a folder',
      "usage: bun run example file-serving --port <0-65535> [--dir <folder>]",
    ],
  ]);
});
