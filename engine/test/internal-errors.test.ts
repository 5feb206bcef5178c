import { afterEach, expect, test } from "bun:test";
import { listen } from "../index.ts";
import { Connection } from "../src/internal/connection.ts";
import { RawClient } from "./support/raw-client.ts";
import { echoHandler } from "./support/test-server.ts";

// An error thrown out of the engine's own handling of a socket event is a bug. The connection
// it hit is closed, the others go on, and the operator is told and can count it. Such a bug is
// made here by breaking `Connection.onData` for one marked request.

const originalOnData = Connection.prototype.onData;
afterEach(() => {
  Connection.prototype.onData = originalOnData;
});

function breakOnMarkedRequests(): void {
  Connection.prototype.onData = function (this: Connection, chunk: Uint8Array, owned: boolean) {
    if (Buffer.from(chunk).includes("X-Break: yes")) throw new Error("an engine bug");
    originalOnData.call(this, chunk, owned);
  };
}

test("an internal error closes its connection, is told to onInternalError and counted; a side client is served", async () => {
  const told: unknown[] = [];
  const server = listen({
    port: 0,
    handler: echoHandler,
    log: null,
    onInternalError: (error) => told.push(String(error)),
  });
  breakOnMarkedRequests();
  using broken = await RawClient.connect(server.port);
  broken.send("GET /a HTTP/1.1\r\nHost: h\r\nX-Break: yes\r\n\r\n");
  await broken.waitForClose();
  using side = await RawClient.connect(server.port);
  side.send("GET /side HTTP/1.1\r\nHost: h\r\n\r\n");
  expect((await side.response()).status).toBe(200);
  const stats = server.stats();
  expect([told, stats.internalErrors, stats.connectionsOpen]).toEqual([
    ["Error: an engine bug"],
    1,
    1,
  ]);
  await server.stop({ graceMs: 100 });
});

test("by default an internal error is written with console.error; null is silence; a report that throws is ignored", async () => {
  const written: unknown[][] = [];
  const consoleError = console.error;
  console.error = (...values: unknown[]) => void written.push(values);
  try {
    const servers = [
      listen({ port: 0, handler: echoHandler, log: null }),
      listen({ port: 0, handler: echoHandler, log: null, onInternalError: null }),
      listen({
        port: 0,
        handler: echoHandler,
        log: null,
        onInternalError: () => {
          throw new Error("the report broke");
        },
      }),
    ];
    breakOnMarkedRequests();
    for (const server of servers) {
      using client = await RawClient.connect(server.port);
      client.send("GET / HTTP/1.1\r\nHost: h\r\nX-Break: yes\r\n\r\n");
      await client.waitForClose();
    }
    expect(written.map(([line, error]) => [line, String(error)])).toEqual([
      ["corral: an internal error closed a connection:", "Error: an engine bug"],
    ]);
    expect(servers.map((server) => server.stats().internalErrors)).toEqual([1, 1, 1]);
    for (const server of servers) await server.stop({ graceMs: 100 });
  } finally {
    console.error = consoleError;
  }
});

test("onInternalError of the wrong kind is a TypeError", () => {
  expect(() =>
    listen({ port: 0, handler: echoHandler, log: null, onInternalError: 1 as never }),
  ).toThrow("corral: onInternalError must be a function or null");
});
