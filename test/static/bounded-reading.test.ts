import { expect, test } from "bun:test";
import { closeSync, openSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { App, serveStatic } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { makeFixture, serveLogged } from "./support/static-fixture.ts";

const size = 4 * 1024 * 1024;
/**
 * The file changed while it is sent: larger than the kernel can buffer between the two sockets
 * while the client reads nothing. The server's send buffer alone grows to `tcp_wmem`'s maximum
 * (4 MiB here) as soon as the connection opens once Linux has cached a large window for
 * 127.0.0.1 (`ip tcp_metrics`, after any heavy loopback load): a 4 MiB file then went out whole
 * and the download never blocked.
 */
const changingSize = 16 * 1024 * 1024;

/**
 * Starts a download of a `changingSize` file of 0x61 bytes, blocks it on a client that reads
 * nothing, lets `change` alter the file at `path`, then reads the rest until the server closes.
 */
async function downloadWhileChanged(change: (path: string) => void) {
  using fixture = makeFixture();
  const path = join(fixture.root, "changing.bin");
  writeFileSync(path, new Uint8Array(changingSize).fill(0x61));
  const { app, server, logged } = serveLogged(fixture.root);
  try {
    using client = await RawClient.connect(server.port);
    client.stopReading();
    client.send("GET /files/changing.bin HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    // The server's writes block on the unread socket: the download is under way, not done.
    await waitUntil(() => app.stats().blockedConnections === 1, "the download to block");
    change(path);
    client.resumeReading();
    await client.waitForClose(10_000);
    const text = client.receivedText;
    const body = client.received.subarray(text.indexOf("\r\n\r\n") + 4);
    return { text, body, logged };
  } finally {
    await app.stop({ graceMs: 100 });
  }
}

test("a file changed in place while it is sent: the answer stops short of its Content-Length and holds only old bytes", async () => {
  const { text, body, logged } = await downloadWhileChanged((path) => {
    const handle = openSync(path, "r+");
    writeSync(handle, new Uint8Array(changingSize).fill(0x62), 0, changingSize, 0);
    closeSync(handle);
  });
  expect({
    status: text.slice(0, 15),
    declared: text.includes(`Content-Length: ${changingSize}\r\n`),
    short: body.length < changingSize,
    onlyOld: body.every((byte) => byte === 0x61),
    logged: logged.map((line) =>
      line.includes("stream is aborted: FileChangedError: the file changed"),
    ),
  }).toEqual({
    status: "HTTP/1.1 200 OK",
    declared: true,
    short: true,
    onlyOld: true,
    logged: [true],
  });
});

test("a file replaced by rename while it is sent (a deploy): the download goes on, old and whole", async () => {
  // The unlinked inode's change time moves, which cut every download in flight short.
  const { body, logged } = await downloadWhileChanged((path) => {
    const next = `${path}.next`;
    writeFileSync(next, new Uint8Array(changingSize).fill(0x62));
    renameSync(next, path);
  });
  expect({
    length: body.length,
    onlyOld: body.every((byte) => byte === 0x61),
    logged,
  }).toEqual({ length: changingSize, onlyOld: true, logged: [] });
});

test("downloads hold no memory of their own: bytes go through staging, none borrowed, whatever the file's size", async () => {
  using fixture = makeFixture();
  writeFileSync(join(fixture.root, "large.bin"), new Uint8Array(size).fill(0x63));
  const app = new App({ shared: {} });
  serveStatic({ root: fixture.root }).mount(app, "/files");
  const server = listenQuietly(app);
  try {
    const downloads = await Promise.all(
      Array.from({ length: 4 }, async () =>
        (await fetch(`http://127.0.0.1:${server.port}/files/large.bin`)).arrayBuffer(),
      ),
    );
    const stats = app.stats();
    expect({
      lengths: downloads.map((body) => body.byteLength),
      staged: stats.bytesCopiedToStaging >= 4 * size,
      borrowed: stats.bytesBorrowed,
    }).toEqual({ lengths: [size, size, size, size], staged: true, borrowed: 0 });
  } finally {
    await app.stop({ graceMs: 100 });
  }
});

test("HEAD of a large file sends its length and no body, a Range ignored, and the connection goes on with the next request", async () => {
  using fixture = makeFixture();
  writeFileSync(join(fixture.root, "large.bin"), new Uint8Array(size).fill(0x64));
  const app = new App({ shared: {} });
  serveStatic({ root: fixture.root }).mount(app, "/files");
  const server = listenQuietly(app);
  try {
    using client = await RawClient.connect(server.port);
    client.send(
      "HEAD /files/large.bin HTTP/1.1\r\nHost: h\r\n\r\n" +
        "HEAD /files/large.bin HTTP/1.1\r\nHost: h\r\nRange: bytes=0-9, 100-109\r\n\r\n" +
        "GET /files/a.txt HTTP/1.1\r\nHost: h\r\n\r\n",
    );
    await client.waitFor(() => client.receivedText.endsWith("hello\n"), "the three answers");
    const heads = client.receivedText
      .split("HTTP/1.1 ")
      .slice(1)
      .map((answer) => {
        const length = /Content-Length: (\d+)/.exec(answer)?.[1];
        const type = /Content-Type: ([^;\r]+)/.exec(answer)?.[1];
        return [answer.slice(0, 3), length, type, answer.slice(answer.indexOf("\r\n\r\n") + 4)];
      });
    expect(heads).toEqual([
      ["200", String(size), "application/octet-stream", ""],
      ["200", String(size), "application/octet-stream", ""],
      ["200", "6", "text/plain", "hello\n"],
    ]);
  } finally {
    await app.stop({ graceMs: 100 });
  }
});
