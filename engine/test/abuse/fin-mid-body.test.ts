import { expect, test } from "bun:test";
import { RawClient } from "../support/raw-client.ts";
import { startServer, waitUntil } from "../support/test-server.ts";

// A client that sends a head and part of its body, then half-closes (FIN), can never complete
// the request. Before, the engine waited for the rest until bodyDeadlineMs, holding the
// worker and the slot, then wrote a 408 to nobody; with one worker, a side client waited that
// long (or until the slow-upload rule reclaimed it).

const heads = [
  "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\nabc",
  "POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
  "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n",
];

for (const head of heads) {
  const kind = head.includes("chunked")
    ? "chunked"
    : head.includes("Expect")
      ? "100-continue"
      : "Content-Length";
  test(`a FIN in the middle of a ${kind} body ends the request at once: worker and slot back, nothing answered`, async () => {
    const handled: string[] = [];
    await using server = startServer(
      (exchange) => {
        handled.push(exchange.path);
        exchange.writeText("ok");
      },
      { workers: 1, bodyDeadlineMs: 30_000 },
    );
    using leaving = await RawClient.connect(server.port);
    leaving.send(head);
    await waitUntil(() => server.stats().workersBusy === 1, "the body to be read");
    leaving.end();
    await waitUntil(
      () => server.stats().workersBusy === 0 && server.stats().connectionsOpen === 0,
      "the request to end",
      3000,
    );
    using side = await RawClient.connect(server.port);
    side.send("GET /side HTTP/1.1\r\nHost: h\r\n\r\n");
    const answer = await side.response();
    expect([answer.status, answer.text, handled]).toEqual([200, "ok", ["/side"]]);
    expect(leaving.receivedText.includes("408")).toBe(false);
    expect(server.stats().deadlineCloses.body).toBe(0);
  });
}

test("what is owed for earlier pipelined requests is still written before the close", async () => {
  await using server = startServer((exchange) => exchange.writeText(`answer ${exchange.path}`), {
    bodyDeadlineMs: 30_000,
  });
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /first HTTP/1.1\r\nHost: h\r\n\r\nPOST /second HTTP/1.1\r\nHost: h\r\nContent-Length: 9\r\n\r\nabc",
  );
  await waitUntil(() => client.receivedText.includes("answer /first"), "the first answer");
  client.end();
  await client.waitForClose(3000);
  const answers = client.receivedText.split("HTTP/1.1 ").length - 1;
  expect([answers, client.receivedText.endsWith("answer /first")]).toEqual([1, true]);
  await waitUntil(() => server.stats().workersBusy === 0, "the worker back", 3000);
});
