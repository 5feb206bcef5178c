import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { isValidFileName } from "../../examples/uploads/file-name.ts";
import { FolderQuota } from "../../examples/uploads/folder-quota.ts";
import { createUploadsApp } from "../../examples/uploads/uploads-app.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { startExample } from "./support/start-example.ts";

const directory = mkdtempSync(join(tmpdir(), "corral-uploads-test-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const mebibyte = 1024 * 1024;

/** The uploads example on port 0, storing into `folder`. */
function startUploads(folder: string) {
  return startExample("uploads", [
    ...["bun", "run", "example", "uploads"],
    ...["--port", "0", "--dir", folder],
  ]);
}

test("uploads: PUT /files/:name streams 16 MiB to --dir and answers 201 with size and SHA-256", async () => {
  await using example = await startUploads(directory);
  const block = crypto.getRandomValues(new Uint8Array(mebibyte));
  const hasher = new Bun.CryptoHasher("sha256");
  using client = await RawClient.connect(example.port);
  client.send(`PUT /files/big.bin HTTP/1.1\r\nHost: h\r\nContent-Length: ${16 * mebibyte}\r\n\r\n`);
  for (let index = 0; index < 16; index++) {
    block[0] = index;
    hasher.update(block);
    await client.sendAll(block);
  }
  const response = await client.response(30_000);
  const digest = hasher.digest("hex");
  const stored = readFileSync(join(directory, "big.bin"));
  expect({
    status: response.status,
    answer: JSON.parse(response.text),
    storedDigest: new Bun.CryptoHasher("sha256").update(stored).digest("hex"),
    files: readdirSync(directory),
  }).toEqual({
    status: 201,
    answer: { name: "big.bin", size: 16 * mebibyte, sha256: digest },
    storedDigest: digest,
    files: ["big.bin"],
  });
}, 60_000);

test("uploads: bad names are 400 before any byte of the body is read", async () => {
  await using example = await startUploads(directory);
  const statuses: number[] = [];
  for (const name of ["..", ".hidden", "a%2Fb", "a\\b", "x".repeat(129)]) {
    using client = await RawClient.connect(example.port);
    // Expect: 100-continue: the refusal comes before the client sends the body.
    client.send(
      `PUT /files/${name} HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n`,
    );
    const response = await client.response();
    statuses.push(response.status);
    expect(client.receivedText).not.toContain("100 Continue");
  }
  expect(statuses).toEqual([400, 400, 400, 400, 400]);
  expect(["a.txt", "x".repeat(128), "report-2024_v2.pdf"].map(isValidFileName)).toEqual([
    true,
    true,
    true,
  ]);
  expect(["", "a/b", "..", ".a", "a b", "x".repeat(129)].map(isValidFileName)).toEqual([
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
});

test("uploads: a client that leaves mid-upload leaves no file behind", async () => {
  const folder = mkdtempSync(join(tmpdir(), "corral-uploads-gone-"));
  await using example = await startUploads(folder);
  const client = await RawClient.connect(example.port);
  client.send(`PUT /files/half.bin HTTP/1.1\r\nHost: h\r\nContent-Length: ${8 * mebibyte}\r\n\r\n`);
  await client.sendAll(new Uint8Array(mebibyte));
  await waitUntil(() => readdirSync(folder).length === 1, "the partial file to appear");
  client.destroy();
  await waitUntil(() => readdirSync(folder).length === 0, "the partial file to be removed");
  expect(readdirSync(folder)).toEqual([]);
  rmSync(folder, { recursive: true, force: true });
});

test("uploads: POST /files stores each file part of a multipart form, with its SHA-256", async () => {
  const folder = mkdtempSync(join(tmpdir(), "corral-uploads-form-"));
  await using example = await startUploads(folder);
  const big = crypto.getRandomValues(new Uint8Array(3 * mebibyte));
  const form = new FormData();
  form.append("note", "not a file");
  form.append("first", new Blob([big]), "one.bin");
  form.append("second", new Blob(["small"]), "two.txt");
  const response = await fetch(`${example.baseUrl}files`, { method: "POST", body: form });
  const digest = (bytes: Uint8Array | string) =>
    new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  expect({
    status: response.status,
    answer: await response.json(),
    files: readdirSync(folder).sort(),
    stored: digest(readFileSync(join(folder, "one.bin"))),
  }).toEqual({
    status: 201,
    answer: {
      files: [
        { name: "one.bin", size: big.length, sha256: digest(big) },
        { name: "two.txt", size: 5, sha256: digest("small") },
      ],
    },
    files: ["one.bin", "two.txt"],
    stored: digest(big),
  });
  rmSync(folder, { recursive: true, force: true });
});

test("uploads: the folder holds at most maxFolderBytes and maxFiles; past either a 507, refused before the body when Content-Length says so", async () => {
  const folder = mkdtempSync(join(tmpdir(), "corral-uploads-quota-"));
  writeFileSync(join(folder, "old.bin"), new Uint8Array(100));
  // Without the quota anyone could fill the disk: every upload was a 201, any number of files.
  const app = createUploadsApp({ directory: folder, maxFolderBytes: 1000, maxFiles: 4 });
  const server = listenQuietly(app);
  const put = async (name: string, head: string, body = "") => {
    using client = await RawClient.connect(server.port);
    client.send(`PUT /files/${name} HTTP/1.1\r\nHost: h\r\n${head}\r\n${body}`);
    const answer = await client.response();
    return `${answer.status} ${answer.status === 201 ? JSON.parse(answer.text).size : answer.text}`;
  };
  try {
    expect(await put("a.bin", "Content-Length: 500\r\n", "x".repeat(500))).toBe("201 500");
    // 100 + 500 + 401 is one byte over: answered from the head alone, no body sent.
    expect(await put("b.bin", "Content-Length: 401\r\n")).toBe(
      '507 {"error":"the upload folder is full: 600 of its 1000 bytes are taken"}',
    );
    expect(await put("b.bin", "Content-Length: 400\r\n", "y".repeat(400))).toBe("201 400");
    // A chunked upload is counted as it comes: its first byte is over.
    expect(await put("c.bin", "Transfer-Encoding: chunked\r\n", "1\r\nz\r\n0\r\n\r\n")).toStartWith(
      '507 {"error":"the upload folder is full: 1000 of its 1000 bytes are taken"}',
    );
    expect(readdirSync(folder).sort()).toEqual(["a.bin", "b.bin", "old.bin"]);
  } finally {
    await app.stop();
  }
  // The file count: a fourth name is refused, replacing one of the three is not.
  const counted = createUploadsApp({ directory: folder, maxFolderBytes: 10_000, maxFiles: 3 });
  const countedServer = listenQuietly(counted);
  try {
    const port = countedServer.port;
    const putTo = async (name: string) => {
      using client = await RawClient.connect(port);
      client.send(`PUT /files/${name} HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nok`);
      const answer = await client.response();
      return `${answer.status} ${answer.text}`;
    };
    expect(await putTo("d.bin")).toBe(
      '507 {"error":"the upload folder is full: it holds 3 files"}',
    );
    expect(await putTo("old.bin")).toStartWith("201 ");
    expect(readFileSync(join(folder, "old.bin"), "utf8")).toBe("ok");
  } finally {
    await counted.stop();
    rmSync(folder, { recursive: true, force: true });
  }
  expect([new FolderQuota(tmpdir()).maxBytes, new FolderQuota(tmpdir()).maxFiles]).toEqual([
    4 * 1024 * mebibyte,
    1000,
  ]);
});

test("uploads: a multipart upload that fails leaves the folder as it was, the files it would replace included", async () => {
  // Each part replaced its file as soon as it was stored: a rejected later part then deleted
  // it, so a file that existed before the request was gone.
  const folder = mkdtempSync(join(tmpdir(), "corral-uploads-atomic-"));
  writeFileSync(join(folder, "report.txt"), "original");
  const app = createUploadsApp({ directory: folder, maxFolderBytes: 1000, maxFiles: 4 });
  try {
    const send = (parts: [string, string, string][]) => {
      const form = new FormData();
      for (const [field, content, filename] of parts)
        form.append(field, new Blob([content]), filename);
      return app.request("/files", { method: "POST", body: form });
    };
    const badName = await send([
      ["a", "replacement", "report.txt"],
      ["b", "hidden", ".hidden"],
    ]);
    const tooLarge = await send([
      ["a", "replacement", "report.txt"],
      ["b", "x".repeat(1000), "big.bin"],
    ]);
    expect({
      statuses: [badName.status, tooLarge.status],
      files: readdirSync(folder),
      report: readFileSync(join(folder, "report.txt"), "utf8"),
    }).toEqual({ statuses: [400, 507], files: ["report.txt"], report: "original" });
    // The quota counted nothing of them: the whole budget is still there.
    const fits = await send([["a", "y".repeat(1000 - 8), "fits.bin"]]);
    expect([fits.status, readdirSync(folder).sort()]).toEqual([201, ["fits.bin", "report.txt"]]);
  } finally {
    await app.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
