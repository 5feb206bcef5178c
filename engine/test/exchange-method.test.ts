import { expect, test } from "bun:test";
import { RawClient } from "./support/raw-client.ts";
import { startServer } from "./support/test-server.ts";

const shared = new Set(["GET", "PUT", "POST", "HEAD", "PATCH", "DELETE", "OPTIONS"]);

test("exchange.method: the seven common methods as shared strings, lookalikes and others as sent", async () => {
  await using server = startServer((exchange) => {
    const method = exchange.method;
    // In a header, with no body: a HEAD answer carries none either.
    exchange.setHeader("X-Method", `${method} ${shared.has(method) ? "known" : "other"}`);
  });
  // Each lookalike shares a length and first byte with a common method (the way the getter
  // picks its candidate), and differs after it.
  const methods = [
    "GET",
    "GEX",
    "PUT",
    "PUX",
    "POST",
    "PORT",
    "HEAD",
    "HEAX",
    "PATCH",
    "PATCX",
    "DELETE",
    "DELETX",
    "OPTIONS",
    "OPTIONX",
    "get",
    "PROPFIND",
    "M",
  ];
  using client = await RawClient.connect(server.port);
  client.send(methods.map((method) => `${method} / HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
  const responses = await client.responses(methods.length);
  expect(responses.map((response) => response.header("x-method"))).toEqual(
    methods.map((method) => `${method} ${shared.has(method) ? "known" : "other"}`),
  );
});
