import { expect, test } from "bun:test";
import { RawClient } from "../../engine/test/support/raw-client.ts";

async function startDemo(args: string[]) {
  const child = Bun.spawn(["bun", "run", "examples/demo/main.ts", ...args], {
    cwd: `${import.meta.dir}/../..`,
    stdout: "pipe",
    stderr: "pipe",
  });
  return child;
}

async function readLines(stream: ReadableStream<Uint8Array>, count: number): Promise<string[]> {
  const lines: string[] = [];
  let buffered = "";
  const reader = stream.getReader();
  while (lines.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += new TextDecoder().decode(value);
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    lines.push(...parts);
  }
  reader.releaseLock();
  return lines;
}

test("the demo starts on --port 0, prints its URL and budget, serves /hello and stops on SIGTERM", async () => {
  const child = await startDemo(["--port", "0"]);
  const [budget, url] = await readLines(child.stdout, 2);
  expect(budget).toMatch(/^corral: reserved [\d.]+ MiB \(1024 connections x /);
  const match = /^corral demo listening on (http:\/\/127\.0\.0\.1:(\d+)\/)$/.exec(url ?? "");
  expect(match).not.toBeNull();
  const base = match![1]!;
  const hello = await fetch(`${base}hello`);
  expect([hello.status, await hello.text()]).toEqual([200, "Hello, World!"]);
  const missing = await fetch(`${base}elsewhere`);
  expect(missing.status).toBe(404);
  using client = await RawClient.connect(Number(match![2]));
  client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n");
  const raw = await client.response();
  expect([raw.statusLine, raw.header("content-length"), raw.text]).toEqual([
    "HTTP/1.1 200 OK",
    "13",
    "Hello, World!",
  ]);
  child.kill("SIGTERM");
  expect(await child.exited).toBe(0);
});

test("the demo rejects a bad --port with a usage error", async () => {
  const child = await startDemo(["--port", "http"]);
  expect(await child.exited).toBe(2);
  expect(await new Response(child.stderr).text()).toContain("usage: bun run demo --port <0-65535>");
});
