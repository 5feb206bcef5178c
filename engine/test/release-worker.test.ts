import { expect, test } from "bun:test";
import { RawClient } from "./support/raw-client.ts";
import { startServer, waitUntil } from "./support/test-server.ts";

test("a handler that gives its worker back keeps its drafted header lines; a stored body is gone", async () => {
  const { promise: otherAnswered, resolve: answerOther } = Promise.withResolvers<void>();
  const checks: unknown[] = [];
  let released = false;
  await using server = startServer(
    async (exchange) => {
      if (exchange.path === "/other") {
        // Drafts into the one worker the waiting handler gave back.
        exchange.setHeader("X-Other", "a value that overwrites the worker's header lines");
        exchange.writeText("other");
        return;
      }
      const body = Buffer.from(exchange.body).toString("latin1");
      exchange.setHeader("X-Kept", "kept");
      checks.push(exchange.canReleaseWorker);
      exchange.releaseWorker();
      released = true;
      checks.push(exchange.canReleaseWorker, exchange.hasWorker);
      await otherAnswered;
      await exchange.acquireWorker();
      checks.push(failureOf(() => exchange.body));
      exchange.writeText(`body was ${body}`);
      checks.push(
        exchange.canReleaseWorker,
        failureOf(() => exchange.releaseWorker()),
      );
    },
    { workers: 1 },
  );
  using waiting = await RawClient.connect(server.port);
  // A chunked body is decoded into the worker's body storage.
  waiting.send(
    "POST /wait HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
  );
  await waitUntil(() => released, "the handler to give its worker back");
  using other = await RawClient.connect(server.port);
  other.send("GET /other HTTP/1.1\r\nHost: h\r\n\r\n");
  const otherResponse = await other.response();
  answerOther();
  const response = await waiting.response();
  expect({
    other: [otherResponse.text, otherResponse.header("x-other") !== undefined],
    waiting: [response.text, response.header("x-kept"), response.header("x-other")],
    checks,
  }).toEqual({
    other: ["other", true],
    waiting: ["body was abc", "kept", undefined],
    checks: [
      true,
      false,
      false,
      "TypeError: corral: the request body went with the released worker; read it before",
      false,
      "TypeError: corral: the worker can only be given back with nothing staged",
    ],
  });
});

function failureOf(action: () => unknown): string {
  try {
    action();
    return "no error";
  } catch (error) {
    return String(error);
  }
}
