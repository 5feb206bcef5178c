import { expect, test } from "bun:test";
import { App } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

// A response to HEAD, and a 204 or 304 response, ends with its header section (RFC 9110
// §9.3.2, §15.3.5, §15.4.5; RFC 9112 §6.3). Chunk bytes after one would be read by a client
// reusing the connection as the next response.

test("ctx.response.stream(204, 205 or 304) is a TypeError; the client gets the error answer, framing intact", async () => {
  const errors: string[] = [];
  const app = new App({ shared: {} });
  app.route("GET", "/:status", (ctx) => {
    try {
      ctx.response.stream(Number(ctx.params.status), "text/plain");
    } catch (error) {
      errors.push((error as Error).message);
      ctx.response.text(200, "fallback");
    }
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /204 HTTP/1.1\r\nHost: h\r\n\r\nGET /304 HTTP/1.1\r\nHost: h\r\n\r\nGET /205 HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const answers = await client.responses(3);
  // The answer to HEAD announces the chunked framing of GET but carries no chunk, not even the
  // last one: the next response follows its empty line directly.
  using reuser = await RawClient.connect(server.port);
  reuser.send("HEAD /200 HTTP/1.1\r\nHost: h\r\n\r\nGET /200 HTTP/1.1\r\nHost: h\r\n\r\n");
  await reuser.waitFor(() => reuser.receivedText.endsWith("0\r\n\r\n"), "the stream's last chunk");
  const heads = reuser.receivedText.split("\r\n\r\n");
  expect({
    statuses: answers.map((answer) => answer.status),
    bodies: answers.map((answer) => answer.text),
    errors,
    reused: heads.map((part) => part.slice(0, 12)),
  }).toEqual({
    statuses: [200, 200, 200],
    bodies: ["fallback", "fallback", "fallback"],
    errors: [
      "corral: a 204 response has no content and cannot be streamed",
      "corral: a 304 response has no content and cannot be streamed",
      "corral: a 205 response has no content and cannot be streamed",
    ],
    reused: ["HTTP/1.1 200", "HTTP/1.1 200", "0", ""],
  });
  await app.stop({ graceMs: 100 });
});

test("a 205 from the App takes no body: text(205, ...) is a TypeError, setStatus(205) is framed with Content-Length: 0", async () => {
  const errors: string[] = [];
  const app = new App({ shared: {} });
  app.route("GET", "/text", (ctx) => {
    try {
      ctx.response.text(205, "body");
    } catch (error) {
      errors.push((error as Error).message);
      ctx.response.setStatus(205);
    }
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /text HTTP/1.1\r\nHost: h\r\n\r\nGET /text HTTP/1.1\r\nHost: h\r\n\r\n");
  const answers = await client.responses(2);
  expect({
    answers: answers.map(
      (answer) => `${answer.status} ${answer.header("content-length")} ${answer.text}`,
    ),
    errors,
  }).toEqual({
    answers: ["205 0 ", "205 0 "],
    errors: [
      "corral: a 205 response has no content and cannot take a body",
      "corral: a 205 response has no content and cannot take a body",
    ],
  });
  await app.stop({ graceMs: 100 });
});

test("the App's 204 and 304 answers and its answers to HEAD carry no content", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/empty", (ctx) => ctx.response.setStatus(204));
  app.route("GET", "/unchanged", (ctx) => ctx.response.setStatus(304));
  app.route("GET", "/text", (ctx) => ctx.response.text(200, "some text"));
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /empty HTTP/1.1\r\nHost: h\r\n\r\nGET /unchanged HTTP/1.1\r\nHost: h\r\n\r\nHEAD /text HTTP/1.1\r\nHost: h\r\n\r\nHEAD /missing HTTP/1.1\r\nHost: h\r\n\r\nGET /text HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  await client.waitFor(() => client.receivedText.endsWith("some text"), "the last answer");
  const heads = client.receivedText.split("\r\n\r\n");
  expect({
    statuses: heads.slice(0, -1).map((head) => head.slice(9, 12)),
    lastBody: heads.at(-1),
  }).toEqual({ statuses: ["204", "304", "200", "404", "200"], lastBody: "some text" });
  await app.stop({ graceMs: 100 });
});
