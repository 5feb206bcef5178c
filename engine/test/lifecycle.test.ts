import { expect, test } from "bun:test";
import { createEngine, defaultLimits, listen, reservedBytes, resolveLimits } from "../index.ts";
import { RawClient } from "./support/raw-client.ts";
import { startServer, waitUntil } from "./support/test-server.ts";

test("a throwing handler's draft is discarded and a bare 500 is sent; the connection stays usable", async () => {
  await using server = startServer((exchange) => {
    if (exchange.path === "/ok") {
      exchange.writeText("fine");
      return;
    }
    exchange.setHeader("X-Secret", "leak");
    exchange.writeText("half a page");
    throw new Error("database password is hunter2");
  });
  using client = await RawClient.connect(server.port);
  client.send("GET /boom HTTP/1.1\r\nHost: h\r\n\r\nGET /ok HTTP/1.1\r\nHost: h\r\n\r\n");
  const [failed, ok] = await client.responses(2);
  expect({
    status: failed!.statusLine,
    secret: failed!.header("x-secret"),
    body: failed!.text,
    leaked: client.receivedText.includes("hunter2") || client.receivedText.includes("half a page"),
    next: ok!.text,
    failures: server.stats().handlerFailures,
  }).toEqual({
    status: "HTTP/1.1 500 Internal Server Error",
    secret: undefined,
    body: "Internal Server Error\n",
    leaked: false,
    next: "fine",
    failures: 1,
  });
});

test("an exchange used after its request is over throws instead of reading reused memory", async () => {
  let kept: import("../index.ts").Exchange | undefined;
  await using server = startServer((exchange) => {
    kept ??= exchange;
    exchange.writeText(exchange.path);
  });
  using client = await RawClient.connect(server.port);
  client.send("GET /first HTTP/1.1\r\nHost: h\r\n\r\nGET /second HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.responses(2);
  expect(() => kept!.path).toThrow("used after its request was over");
  expect(() => kept!.writeText("x")).toThrow("used after its request was over");
});

test("invalid response headers are refused with a TypeError", async () => {
  const messages: string[] = [];
  await using server = startServer((exchange) => {
    for (const [name, value] of [
      ["Bad Name", "v"],
      ["X-Split", "a\r\nInjected: yes"],
      ["Content-Length", "5"],
    ] as const) {
      try {
        exchange.setHeader(name, value);
      } catch (error) {
        messages.push((error as Error).name);
      }
    }
    exchange.writeText("ok");
  });
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  expect([response.status, response.header("injected"), messages]).toEqual([
    200,
    undefined,
    ["TypeError", "TypeError", "TypeError"],
  ]);
});

test("staging overflow is a ResponseLimitError, never a truncated response", async () => {
  const errors: string[] = [];
  await using server = startServer(
    (exchange) => {
      exchange.writeText("a".repeat(100));
      try {
        exchange.writeText("b");
      } catch (error) {
        errors.push(`${(error as Error).name}:${(error as { limit?: string }).limit}`);
      }
    },
    { stagingBytes: 100 },
  );
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  expect([response.text.length, errors]).toEqual([100, ["ResponseLimitError:stagingBytes"]]);
});

test("stop() closes idle connections at once, lets a response in progress finish, then resolves", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = listen({
    port: 0,
    log: null,
    async handler(exchange) {
      if (exchange.path === "/slow") await gate;
      exchange.writeText("done");
    },
  });
  const idle = await RawClient.connect(server.port);
  const busy = await RawClient.connect(server.port);
  busy.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().workersBusy === 1, "the slow request to start");
  const stopped = server.stop({ graceMs: 5000 });
  await idle.waitForClose();
  release();
  const response = await busy.response();
  await stopped;
  await busy.waitForClose();
  expect([response.text, response.header("connection"), server.stats().connectionsOpen]).toEqual([
    "done",
    "close",
    0,
  ]);
});

test("stop() closes what is still running once the grace period is over", async () => {
  const server = listen({
    port: 0,
    log: null,
    handler: () => new Promise<void>(() => {}),
  });
  const client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().workersBusy === 1, "the request to start");
  await server.stop({ graceMs: 50 });
  await client.waitForClose();
  expect(server.stats().connectionsOpen).toBe(0);
});

test("limits are validated at listen() with a clear error", () => {
  const handler = () => {};
  expect(() => listen({ port: 0, handler, log: null, limits: { workers: 0 } })).toThrow(
    "corral: limit workers must be a whole number >= 1, got 0",
  );
  expect(() => listen({ port: 0, handler, log: null, limits: { maxBodyBytes: 1.5 } })).toThrow(
    "limit maxBodyBytes must be a whole number",
  );
  expect(() =>
    listen({
      port: 0,
      handler,
      log: null,
      limits: { maxRequestLineBytes: 9000, maxHeaderBytes: 8000 },
    }),
  ).toThrow("maxRequestLineBytes must not exceed maxHeaderBytes");
  expect(() =>
    listen({ port: 0, handler, log: null, limits: { nonsense: 1 } as unknown as object }),
  ).toThrow('unknown limit "nonsense"');
  expect(() => listen({ port: 70000, handler, log: null })).toThrow("port must be an integer");
});

test("a misspelt option of listen, createEngine or engine.listen is a TypeError naming it, not ignored", async () => {
  const handler = () => {};
  // Casts stand for JavaScript callers (or an options object built elsewhere): the types refuse these.
  expect(() => listen({ port: 0, handler, log: null, reuseport: true } as never)).toThrow(
    'corral: listen() has no option "reuseport" (its options: handler, limits, streamBodies, ' +
      "dispatchKey, dispatchOversizedBodies, requestCollectionWeight, log, onInternalError, " +
      "hostname, port, reusePort)",
  );
  expect(() => listen({ port: 0, handler, log: null, maxConnections: 8 } as never)).toThrow(
    'listen() has no option "maxConnections"',
  );
  expect(() => createEngine({ handler, log: null, port: 0 } as never)).toThrow(
    'corral: createEngine() has no option "port" (its options: handler, limits,',
  );
  const engine = createEngine({ handler, log: null });
  expect(() => engine.listen({ port: 0, handler } as never)).toThrow(
    'corral: engine.listen() has no option "handler" (its options: hostname, port, reusePort)',
  );
  expect(() => listen({ port: "3000" as never, handler, log: null })).toThrow(
    'port must be an integer from 0 to 65535, got the string "3000"',
  );
  // Every option spelt right is taken.
  const server = listen({
    hostname: "127.0.0.1",
    port: 0,
    reusePort: false,
    handler: (exchange) => exchange.writeText("ok"),
    limits: { maxConnections: 8 },
    log: null,
    onInternalError: null,
    requestCollectionWeight: 1,
    dispatchOversizedBodies: false,
  });
  expect(server.limits.maxConnections).toBe(8);
  expect(() => server.stop({ grace: 10 } as never)).toThrow(
    'corral: stop() has no option "grace" (its options: graceMs)',
  );
  await server.stop({ graceMs: 10 });
  await engine.stop();
});

test("the budget line states the reservation computed from the limits", () => {
  const lines: string[] = [];
  const limits = { maxConnections: 10, workers: 2, maxBodyBytes: 1024 * 1024 };
  const server = listen({ port: 0, handler: () => {}, limits, log: (line) => lines.push(line) });
  const resolved = resolveLimits(limits);
  const mebibytes = (reservedBytes(resolved) / 1024 / 1024).toFixed(1);
  expect(lines).toEqual([
    `corral: reserved ${mebibytes} MiB (10 connections x (16 KiB head + 16 KiB output), 2 workers x (64 KiB staging + 1.0 MiB body + 16 KiB stream window), 4 WebSocket message buffers x 1.0 MiB)`,
  ]);
  expect(Object.isFrozen(defaultLimits)).toBe(true);
  return server.stop();
});

test("a port in use is an error naming the address, the port and the reason; the engine may listen again", async () => {
  const taken = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const engine = createEngine({ handler: (exchange) => exchange.writeText("up"), log: null });
  let failure: (Error & { code?: string }) | undefined;
  try {
    engine.listen({ port: taken.port });
  } catch (error) {
    failure = error as Error & { code?: string };
  }
  expect(failure?.message).toBe(
    `corral: cannot listen on 127.0.0.1:${taken.port}: the address is in use (EADDRINUSE): another process listens there`,
  );
  expect(failure?.code).toBe("EADDRINUSE");
  expect((failure?.cause as { code?: string } | undefined)?.code).toBe("EADDRINUSE");
  // Nothing was left half-done: the same engine listens on a free port and answers.
  const server = engine.listen({ port: 0 });
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  expect((await client.response()).text).toBe("up");
  await server.stop();
  taken.stop(true);
});
