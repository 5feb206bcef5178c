import { expect, test } from "bun:test";
import { App, type Context } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

type AnyContext = Context<object, Readonly<Record<string, string>>, object>;

const borrowed = new Uint8Array(300).fill(0x62);
const smallBorrowed = new Uint8Array(10).fill(0x63);

/**
 * Each misuse of the draft, after a first call that put it in some state. The misuse must throw a
 * TypeError and leave the draft as it was: the answer is what the first call drafted.
 */
const cases: Record<
  string,
  { readonly first: (ctx: AnyContext) => unknown; readonly misuse: (ctx: AnyContext) => unknown }
> = {
  "borrow-then-print": {
    first: (ctx) => ctx.response.borrowBody(202, "text/plain", borrowed),
    misuse: (ctx) => ctx.response.print("more"),
  },
  "borrow-then-text": {
    first: (ctx) => ctx.response.borrowBody(202, "text/plain", borrowed),
    misuse: (ctx) => ctx.response.text(200, "replacement"),
  },
  "borrow-then-bytes": {
    first: (ctx) => ctx.response.borrowBody(202, "text/plain", borrowed),
    misuse: (ctx) => ctx.response.bytes(200, "text/plain", new Uint8Array([1])),
  },
  "small-borrow-then-stream": {
    first: (ctx) => ctx.response.borrowBody(202, "text/plain", smallBorrowed),
    misuse: (ctx) => ctx.response.stream(200, "text/plain"),
  },
  "borrow-then-stream": {
    first: (ctx) => ctx.response.borrowBody(202, "text/plain", borrowed),
    misuse: (ctx) => ctx.response.stream(200, "text/plain"),
  },
  "text-on-204": {
    first: (ctx) => ctx.response.header("X-First", "1"),
    misuse: (ctx) => ctx.response.text(204, "no room for this"),
  },
  "json-on-304": {
    first: (ctx) => ctx.response.header("X-First", "1"),
    misuse: (ctx) => ctx.response.json(304, { cached: true }),
  },
  "borrow-on-204": {
    first: (ctx) => ctx.response.header("X-First", "1"),
    misuse: (ctx) => ctx.response.borrowBody(204, "text/plain", borrowed),
  },
  "print-on-304": {
    first: (ctx) => ctx.response.setStatus(304),
    misuse: (ctx) => ctx.response.print("no room for this"),
  },
  "204-after-text": {
    first: (ctx) => ctx.response.text(201, "kept"),
    misuse: (ctx) => ctx.response.setStatus(204),
  },
  "304-after-borrow": {
    first: (ctx) => ctx.response.borrowBody(202, "text/plain", borrowed),
    misuse: (ctx) => ctx.response.setStatus(304),
  },
};

test("misuse of the draft is a TypeError that changes nothing: no body is replaced, merged or dropped", async () => {
  const errors: Record<string, string> = {};
  const app = new App({ shared: {}, log: null });
  app.route("GET", "/:case", (ctx) => {
    const { first, misuse } = cases[ctx.params.case]!;
    first(ctx);
    try {
      misuse(ctx);
      errors[ctx.params.case] = "no error";
    } catch (error) {
      errors[ctx.params.case] = `${(error as Error).name}: ${(error as Error).message}`;
    }
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  const names = Object.keys(cases);
  client.send(names.map((name) => `GET /${name} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
  const responses = await client.responses(names.length);
  const answers = Object.fromEntries(
    responses.map((response, index) => [
      names[index],
      `${response.status} ${response.header("content-type")} ${response.text.length}:${response.text.slice(0, 4)}`,
    ]),
  );
  const borrowedAnswer = "202 text/plain 300:bbbb";
  expect({ answers, errors }).toEqual({
    answers: {
      "borrow-then-print": borrowedAnswer,
      "borrow-then-text": borrowedAnswer,
      "borrow-then-bytes": borrowedAnswer,
      "small-borrow-then-stream": "202 text/plain 10:cccc",
      "borrow-then-stream": borrowedAnswer,
      "text-on-204": "200 undefined 0:",
      "json-on-304": "200 undefined 0:",
      "borrow-on-204": "200 undefined 0:",
      "print-on-304": "304 undefined 0:",
      "204-after-text": "201 text/plain; charset=utf-8 4:kept",
      "304-after-borrow": borrowedAnswer,
    },
    errors: {
      "borrow-then-print":
        "TypeError: corral: print() after borrowBody(): a borrowed body is the whole body; call borrowBody() again to replace it",
      "borrow-then-text":
        "TypeError: corral: text() after borrowBody(): a borrowed body is the whole body; call borrowBody() again to replace it",
      "borrow-then-bytes":
        "TypeError: corral: bytes() after borrowBody(): a borrowed body is the whole body; call borrowBody() again to replace it",
      "small-borrow-then-stream":
        "TypeError: corral: a response with a borrowed body cannot also be streamed",
      "borrow-then-stream":
        "TypeError: corral: a response with a borrowed body cannot also be streamed",
      "text-on-204": "TypeError: corral: a 204 response has no content and cannot take a body",
      "json-on-304": "TypeError: corral: a 304 response has no content and cannot take a body",
      "borrow-on-204": "TypeError: corral: a 204 response has no content and cannot take a body",
      "print-on-304": "TypeError: corral: a 304 response has no content and cannot take a body",
      "204-after-text":
        "TypeError: corral: a 204 response has no content, but 4 body bytes are drafted",
      "304-after-borrow":
        "TypeError: corral: a 304 response has no content, but 300 body bytes are drafted",
    },
  });
  await app.stop();
});

test("setStatus() after a stream's first flush is a TypeError; the stream goes on with its status", async () => {
  const errors: string[] = [];
  const app = new App({ shared: {}, log: null });
  app.route("GET", "/", async (ctx) => {
    ctx.response.setStatus(202);
    const stream = ctx.response.stream(201, "text/plain");
    ctx.response.setStatus(203); // before the first flush: allowed
    const writer = stream.writer();
    await writer.writeAll("one ");
    await writer.flush();
    for (const status of [500, 200]) {
      try {
        ctx.response.setStatus(status);
      } catch (error) {
        errors.push(`${(error as Error).name}: ${(error as Error).message}`);
      }
    }
    await writer.writeAll("two");
    await stream.finish();
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  expect([response.status, response.text, errors]).toEqual([
    203,
    "one two",
    [
      "TypeError: corral: the status cannot change after the first flush of a stream",
      "TypeError: corral: the status cannot change after the first flush of a stream",
    ],
  ]);
  await app.stop();
});

test("an invalid Content-Type is a TypeError however often a valid one came before, and the drafted type stays", async () => {
  const app = new App({ shared: {}, log: null });
  const invalid = [
    "text/plain\r\nX-Injected: 1",
    "text/plain\n",
    " text/plain",
    "text/plain ",
    "",
    "text/plain; name=\u0100",
    "text/\u007fplain",
  ];
  const outcomes: string[] = [];
  app.route("GET", "/", (ctx) => {
    for (const type of invalid) {
      ctx.response.header("Content-Type", "text/plain; charset=utf-8");
      ctx.response.header("content-type", "text/csv");
      try {
        ctx.response.header("CONTENT-TYPE", type);
        outcomes.push("no error");
      } catch (error) {
        outcomes.push((error as Error).name);
      }
      try {
        ctx.response.bytes(200, type, new Uint8Array([0x61]));
        outcomes.push("no error");
      } catch (error) {
        outcomes.push((error as Error).name);
      }
    }
    ctx.response.text(200, "kept");
  });
  const answer = await app.request("/");
  expect({
    outcomes,
    status: answer.status,
    type: answer.headers.get("content-type"),
    body: await answer.text(),
  }).toEqual({
    outcomes: invalid.flatMap(() => ["TypeError", "TypeError"]),
    status: 200,
    // The last valid type header() set; text() keeps a type set before it.
    type: "text/csv",
    body: "kept",
  });
});
