import { afterAll, describe, expect, test } from "bun:test";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { createNegotiationApp, greetingTypes } from "../../examples/negotiation/negotiation-app.ts";
import { startExample } from "./support/start-example.ts";

const app = createNegotiationApp();
afterAll(async () => {
  await app.stop();
});

const json = '{"greeting":"Hello, World!"}';
const html =
  '<!doctype html>\n<html lang="en">\n<meta charset="utf-8">\n<title>Greeting</title>\n' +
  "<p>Hello, World!</p>\n</html>\n";
const plain = "Hello, World!\n";
const notAcceptable =
  "Not Acceptable. /greeting is available as:\n" +
  "application/json\ntext/html; charset=utf-8\ntext/plain; charset=utf-8\n";

/** Status, type, Vary and body of `GET /greeting` with `accept` (no Accept header if undefined). */
async function greeting(accept: string | undefined, method = "GET") {
  const headers: Record<string, string> = accept === undefined ? {} : { Accept: accept };
  const response = await app.request("/greeting", { method, headers });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    vary: response.headers.get("vary"),
    body: await response.text(),
  };
}

const answers = {
  json: { status: 200, type: "application/json", vary: "Accept", body: json },
  html: { status: 200, type: "text/html; charset=utf-8", vary: "Accept", body: html },
  plain: { status: 200, type: "text/plain; charset=utf-8", vary: "Accept", body: plain },
  none: { status: 406, type: "text/plain; charset=utf-8", vary: "Accept", body: notAcceptable },
} as const;

/** Each row: an Accept header and which answer it must get. */
async function expectAnswers(rows: Array<[string | undefined, keyof typeof answers]>) {
  const actual = await Promise.all(rows.map(async ([accept]) => [accept, await greeting(accept)]));
  expect(actual).toEqual(rows.map(([accept, name]) => [accept, answers[name]]));
}

describe("GET /greeting chooses by Accept", () => {
  test("no Accept, */* or a disregarded header: JSON, the server's first choice", async () => {
    await expectAnswers([
      [undefined, "json"],
      ["*/*", "json"],
      ["", "json"],
      ["not a media range", "json"],
    ]);
  });

  test("exact types, case-insensitive", async () => {
    await expectAnswers([
      ["application/json", "json"],
      ["text/html", "html"],
      ["text/plain", "plain"],
      ["TEXT/HTML", "html"],
      ["text/html;charset=UTF-8", "html"],
    ]);
  });

  test("q-values decide; equal weights go to JSON, then HTML, then text", async () => {
    await expectAnswers([
      ["application/json;q=0.5, text/plain;q=0.6", "plain"],
      ["text/plain;q=0.9, text/html;q=0.9", "html"],
      ["text/*;q=0.8, application/json;q=0.8", "json"],
      // What a browser sends: HTML wins over the */* fallback.
      ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "html"],
    ]);
  });

  test("wildcards and specificity: the most specific range sets a type's weight", async () => {
    await expectAnswers([
      ["text/*", "html"],
      ["text/*, text/html;q=0.1", "plain"],
      ["*/*;q=0.1, text/plain", "plain"],
      ["*/*, application/json;q=0.2", "html"],
    ]);
  });

  test("q=0 excludes; nothing left is a 406 listing the types", async () => {
    await expectAnswers([
      ["*/*, application/json;q=0", "html"],
      ["*/*, application/json;q=0, text/html;q=0", "plain"],
      ["*/*;q=0", "none"],
      ["image/png", "none"],
      ["text/html;level=1", "none"],
      ["application/*;q=0, text/*;q=0", "none"],
    ]);
  });

  test("HEAD answers like GET, without a body, Vary included", async () => {
    expect([await greeting("text/plain", "HEAD"), await greeting("image/png", "HEAD")]).toEqual([
      { ...answers.plain, body: "" },
      { ...answers.none, body: "" },
    ]);
  });

  test("the greeting is escaped in HTML only", async () => {
    const custom = createNegotiationApp({ greeting: `<b>"Tea" & 'cake'</b>` });
    const read = async (accept: string) =>
      (await custom.request("/greeting", { headers: { Accept: accept } })).text();
    const page = await read("text/html");
    const text = await read("text/plain");
    await custom.stop();
    expect([page.split("\n")[4], text]).toEqual([
      "<p>&lt;b&gt;&quot;Tea&quot; &amp; &#39;cake&#39;&lt;/b&gt;</p>",
      `<b>"Tea" & 'cake'</b>\n`,
    ]);
  });

  test("the 406 lists exactly the types the resource is available as", () => {
    expect(notAcceptable.split("\n").slice(1, -1)).toEqual([...greetingTypes]);
  });
});

describe("bun run example negotiation", () => {
  test("serves the three representations and the 406 over TCP, byte for byte", async () => {
    await using example = await startExample("negotiation");
    const fetched = await fetch(`${example.baseUrl}greeting`); // fetch sends Accept: */*
    expect([fetched.status, fetched.headers.get("vary"), await fetched.text()]).toEqual([
      200,
      "Accept",
      json,
    ]);

    using client = await RawClient.connect(example.port);
    const request = (accept: string) =>
      `GET /greeting HTTP/1.1\r\nHost: h\r\nAccept: ${accept}\r\n\r\n`;
    client.send(request("text/html") + request("text/plain;q=0.5, */*;q=0.1") + request("image/*"));
    const responses = await client.responses(3);
    expect(
      responses.map((response) => ({
        statusLine: response.statusLine,
        headers: response.headers.filter(([name]) => name !== "date"),
        body: response.text,
      })),
    ).toEqual([
      {
        statusLine: "HTTP/1.1 200 OK",
        headers: [
          ["vary", "Accept"],
          ["content-type", "text/html; charset=utf-8"],
          ["content-length", String(html.length)],
        ],
        body: html,
      },
      {
        statusLine: "HTTP/1.1 200 OK",
        headers: [
          ["vary", "Accept"],
          ["content-type", "text/plain; charset=utf-8"],
          ["content-length", "14"],
        ],
        body: plain,
      },
      {
        statusLine: "HTTP/1.1 406 Not Acceptable",
        headers: [
          ["vary", "Accept"],
          ["content-type", "text/plain; charset=utf-8"],
          ["content-length", String(notAcceptable.length)],
        ],
        body: notAcceptable,
      },
    ]);
  });

  test("several Accept lines are one list (RFC 9110 §5.3): the second line counts too", async () => {
    await using example = await startExample("negotiation");
    using client = await RawClient.connect(example.port);
    client.send(
      "GET /greeting HTTP/1.1\r\nHost: h\r\nAccept: image/png\r\nAccept: text/plain;q=0.5\r\n\r\n",
    );
    const response = await client.response();
    expect([response.status, response.header("vary"), response.text]).toEqual([
      200,
      "Accept",
      plain,
    ]);
  });
});
