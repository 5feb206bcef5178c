// RFC 9112 §9.6: a server that closes its socket with bytes from the client still unread makes
// the kernel send a reset, which can erase the answer the client has not read yet. After an
// error answer the engine always half-closes and lingers; it must also when a client sent more
// behind a request that ends the connection (see also websocket/closing-linger.test.ts).
import { expect, test } from "bun:test";
import { RawClient } from "./support/raw-client.ts";
import { startServer, waitUntil } from "./support/test-server.ts";

/** Larger than the sockets' buffers: still on its way when the connection ends. */
const body = new Uint8Array(3 << 20).fill(0x61);

test("the answer to a Connection: close request reaches a slow reader that sent a megabyte behind it", async () => {
  await using server = startServer((exchange) => {
    exchange.setHeader("Content-Type", "application/octet-stream");
    exchange.borrowBody(body);
  });
  using client = await RawClient.connect(server.port);
  client.stopReading();
  client.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  client.push(new Uint8Array(1 << 20).fill(0x41));
  await Bun.sleep(200);
  client.resumeReading();
  await client.waitForClose(5000);
  const response = client.receivedText;
  const headEnd = response.indexOf("\r\n\r\n") + 4;
  expect({
    status: response.slice(0, response.indexOf("\r\n")),
    connection: /\r\nConnection: close\r\n/.test(response.slice(0, headEnd)),
    bodyBytes: client.received.length - headEnd,
  }).toEqual({ status: "HTTP/1.1 200 OK", connection: true, bodyBytes: body.length });
  await waitUntil(() => server.stats().connectionsOpen === 0, "the slot to be freed");
});
