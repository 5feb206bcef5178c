import { expect, test } from "bun:test";
import { App } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const body = '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--xyz--\r\n';

/** Posts `content` with the Content-Type `type` (Latin-1 bytes as given); `status text`. */
async function post(port: number, path: string, type: string, content: string): Promise<string> {
  using client = await RawClient.connect(port);
  client.send(
    `POST ${path} HTTP/1.1\r\nHost: h\r\nContent-Type: ${type}\r\n` +
      `Content-Length: ${content.length}\r\n\r\n${content}`,
  );
  const response = await client.response();
  return `${response.status} ${response.text}`;
}

test("the media type is trimmed of SP and HTAB only (RFC 9110 §5.6.3): U+00A0 makes another type", async () => {
  const app = new App({ shared: {}, log: null });
  app.route("POST", "/multipart", (ctx) => {
    ctx.response.text(
      200,
      ctx.request
        .multipart()
        .map((part) => part.name)
        .join(","),
    );
  });
  app.route(
    "POST",
    "/stream",
    async (ctx) => {
      const names: string[] = [];
      for await (const part of ctx.request.multipartStream()) names.push(part.name);
      ctx.response.text(200, names.join(","));
    },
    { body: "stream" },
  );
  app.route("POST", "/form", (ctx) => {
    ctx.response.text(200, Array.from(ctx.request.form(), (entry) => entry.nameRaw).join(","));
  });
  const server = listenQuietly(app);
  const padded = "multipart/form-data \t; boundary=xyz";
  const nbsp = "multipart/form-data\xa0; boundary=xyz";
  const formNbsp = "application/x-www-form-urlencoded\xa0";
  const answers = [
    await post(server.port, "/multipart", padded, body),
    await post(server.port, "/stream", padded, body),
    await post(server.port, "/form", "application/x-www-form-urlencoded \t; charset=utf-8", "a=1"),
    await post(server.port, "/multipart", nbsp, body),
    await post(server.port, "/stream", nbsp, body),
    await post(server.port, "/form", formNbsp, "a=1"),
  ];
  const refused = (expected: string, got: string) =>
    `415 Unsupported Media Type: expected ${expected.startsWith("a") ? "an" : "a"} ${expected} body, got ${got}\n`;
  expect(answers).toEqual([
    "200 a",
    "200 a",
    "200 a",
    refused("multipart/form-data", "multipart/form-data\xa0"),
    refused("multipart/form-data", "multipart/form-data\xa0"),
    refused("application/x-www-form-urlencoded", formNbsp),
  ]);
  await app.stop();
});
