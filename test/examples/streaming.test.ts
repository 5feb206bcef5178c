import { expect, test } from "bun:test";
import { ManualIo } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { createStreamingApp } from "../../examples/streaming/streaming-app.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

test("the streaming example sends three separate parts in order, driven by the manual clock", async () => {
  const io = new ManualIo();
  const app = createStreamingApp(io);
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitFor(() => client.receivedText.includes("started\n"), "the first part");
  const afterFirst = client.chunkSizes.length;
  expect(client.receivedText).toContain("Cache-Control: no-cache\r\n");
  expect(client.receivedText).toContain("Content-Type: text/plain; charset=utf-8\r\n");
  expect(client.receivedText.includes("progress")).toBe(false);
  await waitUntil(() => io.pendingTimers === 1, "the handler to sleep");
  io.advance(500);
  await client.waitFor(() => client.receivedText.includes("progress 1 of 2\n"), "the second part");
  const afterSecond = client.chunkSizes.length;
  expect(client.receivedText.includes("done")).toBe(false);
  await waitUntil(() => io.pendingTimers === 1, "the second sleep");
  io.advance(500);
  const response = await client.response();
  expect({
    text: response.text,
    parts: [afterFirst >= 1, afterSecond > afterFirst, client.chunkSizes.length > afterSecond],
    cleanups: app.shared.cleanups,
  }).toEqual({
    text: "started\nprogress 1 of 2\ndone\n",
    parts: [true, true, true],
    cleanups: 1,
  });
  await app.stop();
});

test("a client that leaves after the first part: the sleeping handler holds no worker, its sleep ends and cleanup runs", async () => {
  const io = new ManualIo();
  const app = createStreamingApp(io);
  const server = listenQuietly(app);
  const client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitFor(() => client.receivedText.includes("started\n"), "the first part");
  await waitUntil(() => io.pendingTimers === 1, "the handler to sleep");
  // Between two flushes ctx.sleep gives the worker back.
  expect(server.stats().workersBusy).toBe(0);
  client.destroy();
  await waitUntil(() => app.shared.cleanups === 1, "cleanup to run");
  await waitUntil(() => server.stats().workersBusy === 0, "the worker to be idle");
  expect(io.pendingTimers).toBe(0);
  await app.stop();
});

test("bun run example streaming serves the stream from a subprocess", async () => {
  const child = Bun.spawn(["bun", "run", "example", "streaming", "--port", "0"], {
    cwd: `${import.meta.dir}/../..`,
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const reader = child.stdout.getReader();
    let output = "";
    while (!/listening on (\S+)/.test(output)) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const url = /listening on (\S+)/.exec(output)![1]!;
    const response = await fetch(url);
    expect([response.headers.get("cache-control"), await response.text()]).toEqual([
      "no-cache",
      "started\nprogress 1 of 2\ndone\n",
    ]);
  } finally {
    child.kill("SIGTERM");
  }
  expect(await child.exited).toBe(0);
});
