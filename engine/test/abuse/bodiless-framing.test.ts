import { expect, test } from "bun:test";
import type { Exchange } from "../../index.ts";
import { RawClient } from "../support/raw-client.ts";
import { startServer } from "../support/test-server.ts";

// RFC 9110 §9.3.2, §15.3.5, §15.4.5 and RFC 9112 §6.1, §6.3: a response to HEAD, and a 1xx, 204
// or 304 response, ends with its header section. Content after it would be read by a client
// that reuses the connection as the start of the next response.

test("engine error answers to HEAD carry headers only", async () => {
  await using server = startServer((exchange) => exchange.writeText("ok"), { maxBodyBytes: 10 });
  const cases = [
    ["HEAD / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", 413],
    ["HEAD / HTTP/1.1\r\nHost: h\r\nExpect: something\r\n\r\n", 417],
    ["HEAD / HTTP/1.1\r\nHost: h\r\nBad Header: x\r\n\r\n", 400],
    ["HEAD / HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n", 400],
  ] as const;
  const seen: Array<[number, string, string]> = [];
  for (const [request, status] of cases) {
    using client = await RawClient.connect(server.port);
    client.send(request);
    await client.waitForClose();
    const text = client.receivedText;
    const headEnd = text.indexOf("\r\n\r\n") + 4;
    seen.push([status, text.slice(9, 12), text.slice(headEnd)]);
  }
  expect(seen).toEqual(cases.map(([, status]) => [status, String(status), ""]));
});

test("stream() on a 204 or 304 response is a TypeError, and nothing but the error answer is sent", async () => {
  const errors: string[] = [];
  await using server = startServer((exchange) => {
    exchange.setStatus(exchange.path === "/204" ? 204 : 304);
    try {
      exchange.stream();
    } catch (error) {
      errors.push(`${(error as Error).name}: ${(error as Error).message}`);
      throw error;
    }
  });
  for (const path of ["/204", "/304"]) {
    using client = await RawClient.connect(server.port);
    client.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
    const answer = await client.response();
    expect(answer.status).toBe(500);
  }
  expect(errors).toEqual([
    "TypeError: corral: a 204 response has no content and cannot be streamed",
    "TypeError: corral: a 304 response has no content and cannot be streamed",
  ]);
});

test("a streamed response cannot change to 204 or 304 before its first flush", async () => {
  const errors: string[] = [];
  await using server = startServer(async (exchange) => {
    const stream = exchange.stream();
    try {
      exchange.setStatus(204);
    } catch (error) {
      errors.push((error as Error).message);
    }
    stream.writeText("data");
    await stream.finish();
  });
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const answers = await client.responses(2);
  expect({ statuses: answers.map((answer) => answer.status), errors }).toEqual({
    statuses: [200, 200],
    errors: [
      "corral: a 204 response has no content and cannot be streamed",
      "corral: a 204 response has no content and cannot be streamed",
    ],
  });
});

test("a 204 or 304 takes no body: a write, a borrowed body or the status over a drafted body is a TypeError", async () => {
  const errors: string[] = [];
  const attempts: Record<string, (exchange: Exchange) => void> = {
    "/write": (exchange) => {
      exchange.setStatus(204);
      exchange.write(new Uint8Array([1]));
    },
    "/text": (exchange) => {
      exchange.setStatus(304);
      exchange.writeText("x");
    },
    "/borrow": (exchange) => {
      exchange.setStatus(204);
      exchange.borrowBody(new Uint8Array(300));
    },
    "/status": (exchange) => {
      exchange.writeText("kept");
      exchange.setStatus(304);
    },
  };
  await using server = startServer((exchange) => {
    try {
      attempts[exchange.path]!(exchange);
    } catch (error) {
      errors.push((error as Error).message);
    }
    exchange.writeText(""); // nothing: allowed on any status
  });
  using client = await RawClient.connect(server.port);
  client.send(
    Object.keys(attempts)
      .map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`)
      .join(""),
  );
  const answers = await client.responses(4);
  expect({
    answers: answers.map((answer) => `${answer.status} ${answer.header("content-length")}`),
    errors,
  }).toEqual({
    answers: ["204 undefined", "304 undefined", "204 undefined", "200 4"],
    errors: [
      "corral: a 204 response has no content and cannot take a body",
      "corral: a 304 response has no content and cannot take a body",
      "corral: a 204 response has no content and cannot take a body",
      "corral: a 304 response has no content, but 4 body bytes are drafted",
    ],
  });
});

test("a 205 takes no body either (RFC 9110 §15.3.6) but is framed with Content-Length: 0; a stream of it is a TypeError", async () => {
  // A 205 used to carry whatever was written: `205` with `content-length: 4` and a body.
  const errors: string[] = [];
  const attempts: Record<string, (exchange: Exchange) => void> = {
    "/text": (exchange) => {
      exchange.setStatus(205);
      exchange.writeText("body");
    },
    "/borrow": (exchange) => {
      exchange.setStatus(205);
      exchange.borrowBody(new Uint8Array(300));
    },
    "/status": (exchange) => {
      exchange.writeText("kept");
      exchange.setStatus(205);
    },
    "/stream": (exchange) => {
      exchange.setStatus(205);
      exchange.stream();
    },
    "/empty": (exchange) => exchange.setStatus(205),
  };
  await using server = startServer((exchange) => {
    try {
      attempts[exchange.path]!(exchange);
    } catch (error) {
      errors.push((error as Error).message);
    }
  });
  using client = await RawClient.connect(server.port);
  client.send(
    Object.keys(attempts)
      .map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`)
      .join(""),
  );
  const answers = await client.responses(5);
  expect({
    answers: answers.map(
      (answer) => `${answer.status} ${answer.header("content-length")} ${answer.text}`,
    ),
    errors,
  }).toEqual({
    answers: ["205 0 ", "205 0 ", "200 4 kept", "205 0 ", "205 0 "],
    errors: [
      "corral: a 205 response has no content and cannot take a body",
      "corral: a 205 response has no content and cannot take a body",
      "corral: a 205 response has no content, but 4 body bytes are drafted",
      "corral: a 205 response has no content and cannot be streamed",
    ],
  });
});
