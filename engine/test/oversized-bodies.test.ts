import { expect, test } from "bun:test";
import { BodyTooLargeError, type Exchange, type Handler, listen } from "../index.ts";
import { RawClient } from "./support/raw-client.ts";

/** What the handler saw of each request: the refusal's limit, or the body's length. */
function recordingHandler(seen: string[]): Handler {
  return async (exchange: Exchange) => {
    const refused = exchange.bodyRefused;
    let outcome: string;
    try {
      if (exchange.bodyStreamed) {
        let size = 0;
        for await (const piece of exchange.bodyStream()) size += piece.length;
        outcome = `streamed ${size}`;
      } else {
        outcome = `buffered ${exchange.body.length}`;
      }
    } catch (error) {
      if (!(error instanceof BodyTooLargeError) || (refused !== null && error !== refused)) {
        throw error;
      }
      outcome = `refused ${error.limit}`;
      exchange.setStatus(error.httpStatus);
    }
    seen.push(outcome);
    exchange.writeText(outcome);
  };
}

test("dispatchOversizedBodies: the handler answers a body over its limit; without it the engine does", async () => {
  const seen: string[] = [];
  const limits = { maxBodyBytes: 16, maxStreamedBodyBytes: 32 };
  const handing = listen({
    port: 0,
    log: null,
    limits,
    handler: recordingHandler(seen),
    streamBodies: (exchange) => exchange.method === "PUT",
    dispatchOversizedBodies: true,
  });
  const answering = listen({ port: 0, log: null, limits, handler: recordingHandler(seen) });
  const request = (method: string, length: number) =>
    `${method} / HTTP/1.1\r\nHost: h\r\nContent-Length: ${length}\r\n\r\n${"b".repeat(length)}`;
  const chunkedPut =
    "PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n14\r\n" +
    `${"c".repeat(20)}\r\n0d\r\n${"c".repeat(13)}\r\n0\r\n\r\n`;
  const answers: string[] = [];
  for (const [port, text] of [
    [handing.port, request("POST", 16)],
    [handing.port, request("POST", 17)],
    [handing.port, request("PUT", 32)],
    [handing.port, request("PUT", 33)],
    [handing.port, chunkedPut],
    [answering.port, request("POST", 17)],
  ] as const) {
    using client = await RawClient.connect(port);
    client.send(text);
    const response = await client.response();
    answers.push(`${response.status} ${response.header("connection") ?? "-"} ${response.text}`);
  }
  expect(answers).toEqual([
    "200 - buffered 16",
    "413 close refused maxBodyBytes",
    "200 - streamed 32",
    "413 close refused maxStreamedBodyBytes",
    "413 close refused maxStreamedBodyBytes",
    "413 close Content Too Large: request body over the limit\n",
  ]);
  expect(seen.length).toBe(5);
  expect([handing.stats().errors.bodyTooLarge, answering.stats().errors.bodyTooLarge]).toEqual([
    3, 1,
  ]);
  await Promise.all([handing.stop({ graceMs: 100 }), answering.stop({ graceMs: 100 })]);
});
