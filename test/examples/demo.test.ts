import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { createDemoApp } from "../../examples/demo/demo-app.ts";

const root = `${import.meta.dir}/../..`;

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

async function startDemo() {
  const child = Bun.spawn(["bun", "run", "examples/demo/main.ts", "--port", "0"], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [budget, url] = await readLines(child.stdout, 2);
  const match = /^corral demo listening on (http:\/\/127\.0\.0\.1:(\d+)\/)$/.exec(url ?? "");
  if (match === null) throw new Error(`unexpected demo output: ${budget} / ${url}`);
  return { child, budget: budget!, base: match[1]!, port: Number(match[2]) };
}

function sha256(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

test("the demo serves /hello, /form and /upload over fetch and raw bytes, and stops on SIGTERM", async () => {
  const demo = await startDemo();
  try {
    expect(demo.budget).toMatch(/^corral: reserved [\d.]+ MiB \(1024 connections x /);
    const greeting = await fetch(`${demo.base}hello`);
    const named = await fetch(`${demo.base}hello?name=a%2Bb+c%20d`);
    expect([await greeting.text(), await named.text()]).toEqual(["Hello, World!", "a+b+c d"]);

    const form = await fetch(`${demo.base}form`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "tag=one&note=a+b%2Bc&tag=two&files%5B%5D=x",
    });
    expect([form.status, await form.text()]).toEqual([
      200,
      "tag=one\nnote=a b+c\ntag=two\nfiles[]=x\n",
    ]);

    const upload = new FormData();
    upload.append("files[]", new File(["first file"], "one.txt", { type: "image/png" }));
    upload.append(
      "files[]",
      new File(["second\r\n--file"], "two.bin", { type: "application/octet-stream" }),
    );
    upload.append("files[]", new File([""], "empty.txt", { type: "image/png" }));
    const uploaded = await fetch(`${demo.base}upload`, { method: "POST", body: upload });
    expect(await uploaded.json()).toEqual({
      files: [
        {
          name: "files[]",
          filename: "one.txt",
          contentType: "image/png",
          size: 10,
          sha256: sha256("first file"),
        },
        {
          name: "files[]",
          filename: "two.bin",
          contentType: "application/octet-stream",
          size: 14,
          sha256: sha256("second\r\n--file"),
        },
        {
          name: "files[]",
          filename: "empty.txt",
          contentType: "image/png",
          size: 0,
          sha256: sha256(""),
        },
      ],
    });

    using client = await RawClient.connect(demo.port);
    const longName = "x".repeat(1025);
    const fits = "y".repeat(1024);
    const multipart =
      '--b\r\nContent-Disposition: form-data; name="files[]"; filename="r.txt"\r\n\r\nraw\r\n--b--\r\n';
    client.send(
      `GET /hello?name=${fits} HTTP/1.1\r\nHost: x\r\n\r\n` +
        `GET /hello?name=${longName} HTTP/1.1\r\nHost: x\r\n\r\n` +
        "GET /hello?name=caf%C3%A9+%2B HTTP/1.1\r\nHost: x\r\n\r\n" +
        "GET /hello?name=%C3 HTTP/1.1\r\nHost: x\r\n\r\n" +
        "POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 15\r\n\r\na=1&a=2&b=%2B+x" +
        `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: ${multipart.length}\r\n\r\n${multipart}`,
    );
    const [exact, over, escaped, badUtf8, raw, rawUpload] = await client.responses(6);
    expect([exact!.status, exact!.text.length]).toEqual([200, 1024]);
    expect([over!.status, over!.text]).toEqual([
      400,
      "Bad Request: the decoded name does not fit in 1024 bytes\n",
    ]);
    expect([escaped!.status, escaped!.text]).toEqual([200, "café++"]);
    expect([badUtf8!.status, badUtf8!.text]).toEqual([
      400,
      "Bad Request: decoded bytes are not valid UTF-8\n",
    ]);
    expect(raw!.text).toBe("a=1\na=2\nb=+ x\n");
    expect(JSON.parse(rawUpload!.text).files[0]).toEqual({
      name: "files[]",
      filename: "r.txt",
      contentType: null,
      size: 3,
      sha256: sha256("raw"),
    });
  } finally {
    demo.child.kill("SIGTERM");
  }
  expect(await demo.child.exited).toBe(0);
});

test("the URL the demo prints opens on a page whose forms reach the three routes", async () => {
  const demo = await startDemo();
  try {
    const page = await fetch(demo.base);
    expect([page.status, page.headers.get("content-type")]).toEqual([
      200,
      "text/html; charset=utf-8",
    ]);
    const html = await page.text();
    const forms = [
      ...html.matchAll(/<form action="([^"]+)" method="(\w+)"( enctype="([^"]+)")?>/g),
    ];
    expect(forms.map((form) => [form[1], form[2], form[4]])).toEqual([
      ["/hello", "get", undefined],
      ["/form", "post", undefined],
      ["/upload", "post", "multipart/form-data"],
    ]);
    // What a browser sends for the page's default values, urlencoded.
    const fields = [...html.matchAll(/<input name="(\w+)" value="([^"]*)">/g)].map(
      (field): [string, string] => [field[1]!, field[2]!],
    );
    const hello = await fetch(`${demo.base}hello?${new URLSearchParams(fields.slice(0, 1))}`);
    expect(await hello.text()).toBe("you");
    const body = new URLSearchParams(fields.slice(1));
    const form = await fetch(`${demo.base}form`, { method: "POST", body });
    expect(await form.text()).toBe("tag=one\nnote=a b+c\n");
  } finally {
    demo.child.kill("SIGTERM");
  }
  expect(await demo.child.exited).toBe(0);
});

test("the demo rejects a bad --port with a usage error", async () => {
  const child = Bun.spawn(["bun", "run", "examples/demo/main.ts", "--port", "http"], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await child.exited).toBe(2);
  expect(await new Response(child.stderr).text()).toContain("usage: bun run demo --port <0-65535>");
});

test("the demo on a port in use prints one clear line and exits with status 1", async () => {
  const taken = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  try {
    const child = Bun.spawn(["bun", "run", "examples/demo/main.ts", "--port", String(taken.port)], {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect({
      exitCode: await child.exited,
      stdout: await new Response(child.stdout).text(),
      stderr: await new Response(child.stderr).text(),
    }).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: `corral demo: cannot listen on 127.0.0.1:${taken.port}: the port is in use (EADDRINUSE)\n`,
    });
  } finally {
    taken.stop(true);
  }
});

test("a compiled example names itself in its usage text", async () => {
  const directory = mkdtempSync(`${tmpdir()}/corral-usage-`);
  try {
    const executable = `${directory}/corral-demo`;
    const build = Bun.spawnSync(
      ["bun", "build", "--compile", "examples/demo/main.ts", "--outfile", executable],
      { cwd: root, stdout: "pipe", stderr: "pipe" },
    );
    expect(build.exitCode).toBe(0);
    const child = Bun.spawn([executable, "--port", "http"], { stdout: "pipe", stderr: "pipe" });
    expect([await child.exited, await new Response(child.stderr).text()]).toEqual([
      2,
      `invalid port "http"\nusage: ${executable} --port <0-65535> [--processes <1-1024>]\n`,
    ]);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}, 30_000);

test("the demo echoes forms and uploads past the 64 KiB staging: streamed, not a 500", async () => {
  // A 65,536-byte form, and 64 parts with long names, answered 500 (ResponseLimitError).
  const app = createDemoApp();
  try {
    const value = "x".repeat(65_534);
    const form = await app.request("/form", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `a=${value}`,
    });
    expect([form.status, await form.text()]).toEqual([200, `a=${value}\n`]);
    const upload = new FormData();
    const longName = "n".repeat(400);
    for (let part = 0; part < 64; part++)
      upload.append(longName, new File(["x"], `${longName}.txt`));
    const uploaded = await app.request("/upload", { method: "POST", body: upload });
    const files = ((await uploaded.json()) as { files: { filename: string }[] }).files;
    expect([uploaded.status, files.length, files[63]!.filename]).toEqual([
      200,
      64,
      `${longName}.txt`,
    ]);
  } finally {
    await app.stop();
  }
});
