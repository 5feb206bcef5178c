import { expect, test } from "bun:test";
import type { HandlerCompletion } from "../index.ts";
import { RawClient } from "./support/raw-client.ts";
import { startServer } from "./support/test-server.ts";

/** A completion the test settles by hand, counting the engine's calls of `then`. */
class ManualCompletion implements HandlerCompletion {
  thenCalls = 0;
  onDone: (() => void) | undefined;
  onFailed: ((error: unknown) => void) | undefined;

  // biome-ignore lint/suspicious/noThenProperty: the engine awaits what has a then.
  then(onDone: () => void, onFailed: (error: unknown) => void): void {
    this.thenCalls++;
    this.onDone = onDone;
    this.onFailed = onFailed;
  }
}

test("a handler's own thenable is awaited: then is called once, and the answer waits for onDone", async () => {
  const completions: ManualCompletion[] = [];
  await using server = startServer((exchange) => {
    exchange.writeText(`answer to ${exchange.path}`);
    const completion = new ManualCompletion();
    completions.push(completion);
    return completion;
  });
  using client = await RawClient.connect(server.port);
  client.send("GET /first HTTP/1.1\r\nHost: h\r\n\r\nGET /second HTTP/1.1\r\nHost: h\r\n\r\n");
  await Bun.sleep(50);
  // Nothing is sent, and the pipelined request waits, until the first completion calls back.
  expect([client.receivedText, completions.length, completions[0]!.thenCalls]).toEqual(["", 1, 1]);
  completions[0]!.onDone!();
  const first = await client.response();
  expect([first.status, first.text]).toEqual([200, "answer to /first"]);
  await Bun.sleep(20);
  expect(completions.length).toBe(2);
  completions[1]!.onDone!();
  const [, second] = await client.responses(2);
  expect([second!.status, second!.text, completions[1]!.thenCalls]).toEqual([
    200,
    "answer to /second",
    1,
  ]);
});

test("a thenable's onFailed is a failed handler: its draft is discarded for a bare 500", async () => {
  let completion: ManualCompletion | undefined;
  await using server = startServer((exchange) => {
    exchange.writeText("half a page");
    completion = new ManualCompletion();
    return completion;
  });
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await Bun.sleep(20);
  completion!.onFailed!(new Error("the job failed"));
  const response = await client.response();
  expect([response.statusLine, response.text, server.stats().handlerFailures]).toEqual([
    "HTTP/1.1 500 Internal Server Error",
    "Internal Server Error\n",
    1,
  ]);
});

test("a thenable that calls back at once, or whose then throws, answers like a returning or throwing handler", async () => {
  await using server = startServer((exchange) => {
    exchange.writeText("done at once");
    if (exchange.path === "/throws") {
      return {
        // biome-ignore lint/suspicious/noThenProperty: a thenable is what this test hands over.
        then(): void {
          throw new Error("a broken thenable");
        },
      };
    }
    return {
      // biome-ignore lint/suspicious/noThenProperty: a thenable is what this test hands over.
      then(onDone: () => void): void {
        onDone();
      },
    };
  });
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /now HTTP/1.1\r\nHost: h\r\n\r\nGET /throws HTTP/1.1\r\nHost: h\r\n\r\nGET /now HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const responses = await client.responses(3);
  expect(responses.map((response) => [response.status, response.text])).toEqual([
    [200, "done at once"],
    [500, "Internal Server Error\n"],
    [200, "done at once"],
  ]);
  expect(server.stats().handlerFailures).toBe(1);
});

test("a handler that returns its answer (Bun.serve's Response, a string) or resolves to one failed: a bare 500, counted", async () => {
  await using server = startServer((exchange): undefined | HandlerCompletion => {
    exchange.writeText("drafted");
    const path = exchange.path;
    // Casts stand for JavaScript callers: the handler's type refuses these.
    if (path === "/response") return new Response("hi") as never;
    if (path === "/string") return "hi" as never;
    if (path === "/async-response") return (async () => new Response("hi"))() as never;
    if (path === "/async-nothing") return (async () => {})();
    // biome-ignore lint/suspicious/noThenProperty: a completion of the application's own.
    if (path === "/completion-value") return { then: (onDone) => onDone(42) };
  });
  using client = await RawClient.connect(server.port);
  const paths = [
    "/response",
    "/string",
    "/async-response",
    "/async-nothing",
    "/completion-value",
    "/",
  ];
  client.send(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
  const responses = await client.responses(paths.length);
  expect(responses.map((response) => `${response.status} ${response.text}`)).toEqual([
    "500 Internal Server Error\n",
    "500 Internal Server Error\n",
    "500 Internal Server Error\n",
    "200 drafted",
    "500 Internal Server Error\n",
    "200 drafted",
  ]);
  expect(server.stats().handlerFailures).toBe(4);
});
