import { expect, test } from "bun:test";
import { RawClient } from "./support/raw-client.ts";
import { echoHandler, startServer } from "./support/test-server.ts";

test("a pipelined pair is answered in order on one connection", async () => {
  await using server = startServer(echoHandler);
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\nPOST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc",
  );
  const [first, second] = await client.responses(2);
  expect(first!.status).toBe(200);
  expect(first!.text).toBe("GET /a?x=1 1.1\npath=/a query=x=1\nheaders=Host=h\nbody=");
  expect(second!.text).toContain("body=abc");
});

test("a header is found by its name in any letter case, and only letters fold", async () => {
  await using server = startServer((exchange) => {
    const lookups = [
      "x-caret^name",
      "X-CARET^NAME",
      "x-caret~name",
      "x-tilde~name",
      "x-tilde^name",
    ];
    exchange.writeText(lookups.map((name) => `${name}=${exchange.header(name) ?? "-"}`).join(" "));
  });
  using client = await RawClient.connect(server.port);
  // "^" and "~" differ by the bit that folds letters' case: neither may stand for the other.
  client.send("GET / HTTP/1.1\r\nHost: h\r\nX-Caret^Name: c\r\nX-Tilde~Name: t\r\n\r\n");
  expect((await client.response()).text).toBe(
    "x-caret^name=c X-CARET^NAME=c x-caret~name=- x-tilde~name=t x-tilde^name=-",
  );
});

test("a handler's Date line replaces the engine's on every answer, the line in place or not", async () => {
  const fixedDate = "Sun, 06 Nov 1994 08:49:37 GMT";
  await using server = startServer((exchange) => {
    // The first answer writes both lines; later ones find them in the worker's header area.
    exchange.setHeader("X-Before", "1");
    exchange.setHeader(exchange.path === "/lower" ? "date" : "Date", fixedDate);
    exchange.writeText("ok");
  });
  using client = await RawClient.connect(server.port);
  const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`;
  client.send(request("/") + request("/") + request("/") + request("/lower"));
  const answers = await client.responses(4);
  for (const answer of answers) {
    expect(answer.headers.filter(([name]) => name === "date")).toEqual([["date", fixedDate]]);
    expect(answer.header("x-before")).toBe("1");
  }
});
