import { afterEach, expect, test } from "bun:test";
import { App } from "corral";
import { Connection } from "../../engine/src/internal/connection.ts";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

// An engine bug (made here by breaking `Connection.onData` for one marked request) reaches the
// App's log like a handler error, and `stats().internalErrors` counts it.

const originalOnData = Connection.prototype.onData;
afterEach(() => {
  Connection.prototype.onData = originalOnData;
});

test("the App logs an internal error and counts it; the other connections are served", async () => {
  const logged: string[] = [];
  const app = new App({
    shared: {},
    log: { error: (line: unknown, error: unknown) => logged.push(`${line} ${error}`) },
  });
  app.get("/hello", (ctx) => ctx.response.text(200, "hello"));
  const server = listenQuietly(app);
  Connection.prototype.onData = function (this: Connection, chunk: Uint8Array, owned: boolean) {
    if (Buffer.from(chunk).includes("X-Break: yes")) throw new Error("an engine bug");
    originalOnData.call(this, chunk, owned);
  };
  using broken = await RawClient.connect(server.port);
  broken.send("GET /hello HTTP/1.1\r\nHost: h\r\nX-Break: yes\r\n\r\n");
  await broken.waitForClose();
  using side = await RawClient.connect(server.port);
  side.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n");
  expect((await side.response()).text).toBe("hello");
  expect(logged).toEqual([
    "corral: an internal error closed a connection (stats().internalErrors): Error: an engine bug",
  ]);
  expect(app.stats().internalErrors).toBe(1);
  await app.stop();
});
