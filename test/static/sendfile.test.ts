import { expect, test } from "bun:test";
import { closeSync, ftruncateSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { App, serveStatic } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { makeFixture, serveFiles } from "./support/static-fixture.ts";

// `serveStatic({ sendfile: true })`: files on disk go to the socket with the kernel's sendfile.

function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 65536) {
    crypto.getRandomValues(bytes.subarray(offset, Math.min(size, offset + 65536)));
  }
  return bytes;
}

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

test("a 10 MiB file with sendfile: its SHA-256 whole, from ranges and from multipart ranges; the bytes never staged", async () => {
  using fixture = makeFixture();
  const size = 10 * 1024 * 1024;
  const content = randomBytes(size);
  writeFileSync(join(fixture.root, "large.bin"), content);
  await using server = serveFiles({ root: fixture.root, sendfile: true });
  const url = `http://127.0.0.1:${server.port}/files/large.bin`;
  const before = server.app.stats();
  const whole = await fetch(url);
  const wholeBytes = new Uint8Array(await whole.arrayBuffer());
  const cut = [0, 1, 65535, 65536, 3_000_001, size - 1, size];
  const joined = new Bun.CryptoHasher("sha256");
  const statuses: number[] = [];
  for (let index = 0; index + 1 < cut.length; index++) {
    const piece = await fetch(url, {
      headers: { Range: `bytes=${cut[index]}-${cut[index + 1]! - 1}` },
    });
    statuses.push(piece.status);
    joined.update(new Uint8Array(await piece.arrayBuffer()));
  }
  const multipart = await fetch(url, { headers: { Range: "bytes=0-9, 5000000-5999999" } });
  const multipartText = Buffer.from(await multipart.arrayBuffer());
  const after = server.app.stats();
  expect({
    whole: [whole.status, wholeBytes.length, sha256(wholeBytes)],
    statuses,
    joined: joined.digest("hex"),
    multipart: [
      multipart.status,
      multipartText.includes(Buffer.from(content.subarray(0, 10))),
      multipartText.includes(Buffer.from(content.subarray(5_000_000, 6_000_000))),
    ],
    // Twice the file and the ranges' 10 MB + 10 bytes: sent from the file, not through staging
    // (only what went out while a socket was full passed through the process).
    inKernel: after.bytesSentFromFiles - before.bytesSentFromFiles > size,
    staged: after.bytesCopiedToStaging - before.bytesCopiedToStaging < 1024 * 1024,
  }).toEqual({
    whole: [200, size, sha256(content)],
    statuses: Array(cut.length - 1).fill(206),
    joined: sha256(content),
    multipart: [206, true, true],
    inKernel: true,
    staged: true,
  });
});

test("without the option, files are read through staging: nothing goes out with sendfile", async () => {
  using fixture = makeFixture();
  writeFileSync(join(fixture.root, "large.bin"), randomBytes(1024 * 1024));
  await using server = serveFiles({ root: fixture.root });
  const response = await fetch(`http://127.0.0.1:${server.port}/files/large.bin`);
  expect((await response.arrayBuffer()).byteLength).toBe(1024 * 1024);
  expect(server.app.stats().bytesSentFromFiles).toBe(0);
});

/** Serves `large.bin`, lets a download block, runs `change` on the file, then reads the rest. */
async function changeWhileSent(size: number, change: (path: string) => void) {
  using fixture = makeFixture();
  const path = join(fixture.root, "large.bin");
  writeFileSync(path, new Uint8Array(size).fill(0x61));
  const logged: string[] = [];
  const app = new App({
    shared: {},
    log: { error: (...values: unknown[]) => logged.push(values.map(String).join(" ")) },
  });
  serveStatic({ root: fixture.root, sendfile: true }).mount(app, "/files");
  const server = listenQuietly(app);
  try {
    using client = await RawClient.connect(server.port);
    client.stopReading();
    client.send("GET /files/large.bin HTTP/1.1\r\nHost: h\r\n\r\n");
    await waitUntil(() => app.stats().blockedConnections === 1, "the download to block");
    change(path);
    client.resumeReading();
    await client.waitForClose(20_000);
    const head = Buffer.from(client.received.subarray(0, 300)).toString("latin1");
    const bodyLength = client.received.length - (head.indexOf("\r\n\r\n") + 4);
    return {
      declared: head.includes(`Content-Length: ${size}\r\n`),
      short: bodyLength < size,
      logged: logged.map((line) => line.includes("FileChangedError: the file changed")),
    };
  } finally {
    await app.stop({ graceMs: 100 });
  }
}

test("a file changed in place while sent with sendfile: the answer is cut short of its length, and logged", async () => {
  const size = 32 * 1024 * 1024;
  const outcome = await changeWhileSent(size, (path) => {
    const handle = openSync(path, "r+");
    writeSync(handle, new Uint8Array(size).fill(0x62), 0, size, 0);
    closeSync(handle);
  });
  expect(outcome).toEqual({ declared: true, short: true, logged: [true] });
});

test("a file truncated while sent with sendfile: the answer is cut short of its length, and logged", async () => {
  const size = 32 * 1024 * 1024;
  const outcome = await changeWhileSent(size, (path) => {
    const handle = openSync(path, "r+");
    ftruncateSync(handle, 1024);
    closeSync(handle);
  });
  expect(outcome).toEqual({ declared: true, short: true, logged: [true] });
});
