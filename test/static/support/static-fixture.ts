import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, type AppServer, type StaticFilesOptions, serveStatic } from "corral";
import { RawClient, type WireResponse } from "../../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../../support/listen-quietly.ts";

/** Bytes that must never reach a client: the files outside the served folder hold them. */
export const secretText = "SECRET-OUTSIDE-THE-FOLDER";

/**
 * A temporary tree: `public/` (served) beside `secret.txt` and `public-private/` (not served, the
 * root-prefix trap of `send`), with dotfiles, odd names and symlinks out and in. Removed on dispose.
 */
export function makeFixture(): { readonly base: string; readonly root: string } & Disposable {
  const base = mkdtempSync(join(tmpdir(), "corral-static-"));
  const root = join(base, "public");
  const files: Record<string, string | Uint8Array> = {
    "secret.txt": secretText,
    "public-private/x.txt": secretText,
    "public/a.txt": "hello\n",
    "public/index.html": "<h1>home</h1>\n",
    "public/sub/index.html": "<h1>sub</h1>\n",
    "public/sub/page.txt": "sub page\n",
    "public/empty/keep.txt": "kept\n",
    "public/.env": secretText,
    "public/.git/config": secretText,
    "public/sub/.hidden": secretText,
    "public/with space.txt": "space\n",
    "public/100%.txt": "percent\n",
    "public/hash#.txt": "hash\n",
    "public/café.txt": "accent\n",
    "public/日本.txt": "nihon\n",
    "public/a%2eb.txt": "literal escape\n",
    "public/empty.txt": "",
    "public/data.json": '{"ok":true}\n',
    "public/image.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
    "public/noext": "bytes\n",
  };
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(base, name, ".."), { recursive: true });
    writeFileSync(join(base, name), content);
  }
  symlinkSync("../secret.txt", join(root, "out.txt"));
  symlinkSync("..", join(root, "outdir"));
  symlinkSync("a.txt", join(root, "link.txt"));
  symlinkSync("sub", join(root, "linkdir"));
  symlinkSync(".env", join(root, "dotlink.txt"));
  return {
    base,
    root,
    [Symbol.dispose]() {
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** An App serving `options` at `/files` (and anything else given), stopped on dispose. */
export function serveFiles(
  options: StaticFilesOptions,
  configure?: (app: App<Record<string, never>>) => void,
): AppServer & AsyncDisposable & { readonly app: App<Record<string, never>> } {
  const app = new App({ shared: {} });
  serveStatic(options).mount(app, "/files");
  configure?.(app);
  const server = listenQuietly(app);
  return Object.assign(server, {
    app,
    async [Symbol.asyncDispose]() {
      await app.stop({ graceMs: 100 });
    },
  });
}

/** An App serving `root` at `/files` whose error log is kept in `logged`, one line per call. */
export function serveLogged(root: string) {
  const logged: string[] = [];
  const app = new App({
    shared: {},
    log: { error: (...values: unknown[]) => logged.push(values.map(String).join(" ")) },
  });
  serveStatic({ root }).mount(app, "/files");
  return { app, server: listenQuietly(app), logged };
}

/**
 * A fixture with `files` added (name under `public/` to content), served with `options` at
 * `/files`; the server stops and the fixture goes on dispose.
 */
export function serveFixture(
  files: Record<string, string>,
  options: Omit<StaticFilesOptions, "root"> = {},
  prepare?: (fixture: { readonly base: string; readonly root: string }) => void,
): AppServer & AsyncDisposable & { readonly app: App<Record<string, never>> } {
  const fixture = makeFixture();
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(fixture.root, name), content);
  prepare?.(fixture);
  const server = serveFiles({ ...options, root: fixture.root });
  return Object.assign(server, {
    async [Symbol.asyncDispose]() {
      await server.app.stop({ graceMs: 100 });
      fixture[Symbol.dispose]();
    },
  });
}

/** The status of a GET of each target, each over a fresh raw connection. */
export async function statusesOf(port: number, targets: readonly string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const target of targets) statuses.push((await rawRequest(port, target)).status);
  return statuses;
}

/** One request over a fresh raw TCP connection (nothing normalises the target). */
export async function rawRequest(
  port: number,
  target: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<WireResponse> {
  using client = await RawClient.connect(port);
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  client.send(
    `${method} ${target} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n${lines.join("")}\r\n`,
  );
  if (method === "HEAD") {
    // A HEAD answer has a Content-Length and no body: it ends with its blank line.
    await client.waitFor(() => client.receivedText.includes("\r\n\r\n"), "the head");
    await Bun.sleep(20);
    return headOnly(client.receivedText);
  }
  return await client.response();
}

/** A HEAD answer read off the wire: status, headers, and whatever followed them (nothing). */
function headOnly(text: string): WireResponse {
  const end = text.indexOf("\r\n\r\n");
  const lines = text.slice(0, end).split("\r\n");
  const headers = lines.slice(1).map((line) => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
  });
  const body = Buffer.from(text.slice(end + 4), "latin1");
  return {
    statusLine: lines[0]!,
    status: Number(lines[0]!.split(" ")[1]),
    headers,
    body,
    text: body.toString("latin1"),
    header: (name) => headers.find(([key]) => key === name.toLowerCase())?.[1],
  };
}
