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
