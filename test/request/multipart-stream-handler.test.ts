import { expect, test } from "bun:test";
import { type AnyContext, App, type StreamedPart } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const contentType = "multipart/form-data; boundary=xyz";
const field = (name: string, content: string) =>
  `--xyz\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${content}\r\n`;
const form = (...fields: string[]) => `${fields.join("")}--xyz--\r\n`;

/** An App whose handler errors are kept in `logged` (their messages) instead of printed. */
function loggingApp() {
  const logged: string[] = [];
  const app = new App({
    shared: {},
    log: { error: (_line: unknown, error: unknown) => logged.push((error as Error).message) },
  });
  return { app, logged };
}

/** Adds a streamed POST route whose handler answers 200 with what `read` returns. */
function streamedRoute(app: App<object>, path: string, read: (ctx: AnyContext) => Promise<string>) {
  app.route("POST", path, async (ctx) => ctx.response.text(200, await read(ctx)), {
    body: "stream",
  });
}

/** `name:content` for each part, reading each part's content before asking for the next. */
async function readAll(ctx: AnyContext): Promise<string> {
  const out: string[] = [];
  for await (const part of ctx.request.multipartStream()) {
    let text = "";
    for await (const piece of part.content()) text += Buffer.from(piece).toString("latin1");
    out.push(`${part.name}:${text}`);
  }
  return out.join(",");
}

/** Posts `body` on a fresh connection; `status text` of the answer. */
async function post(port: number, path: string, body: string): Promise<string> {
  using client = await RawClient.connect(port);
  client.send(
    `POST ${path} HTTP/1.1\r\nHost: h\r\nContent-Type: ${contentType}\r\n` +
      `Content-Length: ${body.length}\r\n\r\n${body}`,
  );
  const response = await client.response();
  return `${response.status} ${response.text}`;
}

/** Every part, asking for the next one without reading any content. */
async function collect(ctx: AnyContext): Promise<StreamedPart[]> {
  const parts: StreamedPart[] = [];
  for await (const part of ctx.request.multipartStream()) parts.push(part);
  return parts;
}

/** The bytes in the content of `parts`, read in order. */
async function sizeOf(parts: StreamedPart[]): Promise<number> {
  let size = 0;
  for (const part of parts) for await (const piece of part.content()) size += piece.length;
  return size;
}

test("reading a passed part's content is a logged 500, not empty content; unread parts are skipped", async () => {
  const { app, logged } = loggingApp();
  streamedRoute(app, "/collect", async (ctx) => `read ${await sizeOf(await collect(ctx))}`);
  streamedRoute(
    app,
    "/last",
    async (ctx) => `read ${await sizeOf((await collect(ctx)).slice(-1))}`,
  );
  streamedRoute(app, "/names", async (ctx) => (await collect(ctx)).map((p) => p.name).join(","));
  const server = listenQuietly(app);
  const body = form(field("a", "hello"), field("b", "world"));
  const answers = [
    await post(server.port, "/collect", body),
    await post(server.port, "/last", body),
    await post(server.port, "/names", body),
  ];
  const passed = (name: string) =>
    `corral: multipart part "${name}" was passed: read a part's content before asking for the next part`;
  expect({ answers, logged }).toEqual({
    answers: ["500 Internal Server Error\n", "500 Internal Server Error\n", "200 a,b"],
    logged: [passed("a"), passed("b")],
  });
  await app.stop();
});

test("multipartStream() returns the same reader on every call, going on where the last loop stopped", async () => {
  const { app, logged } = loggingApp();
  streamedRoute(app, "/twice", async (ctx) => {
    const reader = ctx.request.multipartStream();
    const same = ctx.request.multipartStream() === reader;
    const first = await reader.next();
    let size = 0;
    for await (const piece of first!.content()) size += piece.length;
    return `same=${same} ${first!.name}:${size},${await readAll(ctx)}`;
  });
  streamedRoute(app, "/raw-first", async (ctx) => {
    await ctx.request.bodyStream().next();
    return readAll(ctx);
  });
  const server = listenQuietly(app);
  const body = form(field("a", "1"), field("b", "22"), field("c", "333"));
  expect({
    answers: [await post(server.port, "/twice", body), await post(server.port, "/raw-first", body)],
    logged,
  }).toEqual({
    answers: ["200 same=true a:1,b:22,c:333", "500 Internal Server Error\n"],
    logged: ["corral: multipartStream() after bodyStream() read part of the body; use one of them"],
  });
  await app.stop();
});

test("a part with headers and no body is one empty part, streamed or buffered (RFC 2046 §5.1.1)", async () => {
  const { app } = loggingApp();
  streamedRoute(app, "/streamed", readAll);
  app.route("POST", "/buffered", (ctx) => {
    const parts = ctx.request.multipart();
    ctx.response.text(200, parts.map((part) => `${part.name}:${part.bytes.length}`).join(","));
  });
  const server = listenQuietly(app);
  const headersOnly = '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n--xyz--\r\n';
  const emptyContent = '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n\r\n--xyz--\r\n';
  const answers: string[] = [];
  for (const body of [headersOnly, emptyContent]) {
    answers.push(await post(server.port, "/streamed", body));
    answers.push(await post(server.port, "/buffered", body));
  }
  expect(answers).toEqual(["200 a:", "200 a:0", "200 a:", "200 a:0"]);
  await app.stop();
});
