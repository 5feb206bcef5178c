import { expect, test } from "bun:test";
import { createEngine } from "../index.ts";
import { parseResponses } from "./support/raw-client.ts";

test("an in-memory connection goes through the same parser, limits and handler as a socket", async () => {
  const engine = createEngine({
    log: null,
    limits: { maxHeaderCount: 2 },
    handler(exchange) {
      exchange.writeText(`${exchange.method} ${exchange.path} ${exchange.body.length}`);
    },
  });
  const received: Uint8Array[] = [];
  let closed = false;
  const connection = engine.connectInMemory(
    (bytes) => received.push(bytes),
    () => {
      closed = true;
    },
  );
  connection.send(
    new TextEncoder().encode(
      "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi" +
        "GET /b HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n",
    ),
  );
  while (!closed) await Bun.sleep(1);
  const responses = parseResponses(Buffer.concat(received), true);
  expect(responses.map((response) => [response.status, response.text])).toEqual([
    [200, "POST /a 2"],
    [431, "Request Header Fields Too Large: too many header fields\n"],
  ]);
  expect(engine.stats().connectionsOpen).toBe(0);
  await engine.stop();
});

test("after stop() an in-memory connection is refused with a clear error, not as a full server", async () => {
  const engine = createEngine({ log: null, handler: (exchange) => exchange.writeText("ok") });
  await engine.stop();
  expect(() =>
    engine.connectInMemory(
      () => {},
      () => {},
    ),
  ).toThrow("corral: this engine was stopped");
  expect(engine.stats().connectionsRejected).toBe(0);
});

test("an in-memory connection past the last slot is refused as a socket is: the canned 503 with Retry-After, then the close", async () => {
  // It used to be undefined, and app.request() threw where a client would have had a 503.
  const engine = createEngine({
    log: null,
    limits: { maxConnections: 1, retryAfterSeconds: 7 },
    handler: (exchange) => exchange.writeText("ok"),
  });
  const held = engine.connectInMemory(
    () => {},
    () => {},
  );
  // In the middle of a head, and young: neither an idle connection nor a slow head to reclaim.
  held.send(new TextEncoder().encode("GET / HTTP/1.1\r\n"));
  const received: Uint8Array[] = [];
  let closes = 0;
  const refused = engine.connectInMemory(
    (bytes) => received.push(bytes),
    () => closes++,
  );
  refused.send(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  refused.close();
  const [response] = parseResponses(Buffer.concat(received), true);
  expect([
    response!.status,
    response!.header("retry-after"),
    response!.text,
    closes,
    engine.stats().connectionsRejected,
  ]).toEqual([503, "7", "Service Unavailable: too many connections\n", 1, 1]);
  held.close();
  await engine.stop();
});
