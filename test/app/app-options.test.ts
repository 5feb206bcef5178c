import { expect, test } from "bun:test";
import { App, type NoShared } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

test("new App() has no shared state: ctx.shared is an empty object of its own, answered over TCP", async () => {
  const app = new App();
  const other = new App();
  const shared: NoShared = app.shared;
  expect(shared).toEqual({});
  expect(other.shared).not.toBe(app.shared);
  app.get("/shared", (ctx) => ctx.response.json(200, ctx.shared));
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /shared HTTP/1.1\r\nHost: a\r\n\r\n");
  const response = await client.response();
  expect(response.statusLine).toBe("HTTP/1.1 200 OK");
  expect(response.text).toBe("{}");
  await app.stop();
  await other.stop();
});

test("new App({ limits }) without shared applies the limits", async () => {
  const app = new App({ limits: { workers: 3, maxParameters: 7 } });
  expect(app.limits.workers).toBe(3);
  expect(app.limits.maxParameters).toBe(7);
  expect(app.shared).toEqual({});
  await app.stop();
});

test("shared is required when its type has required properties, and kept as given", async () => {
  const state = { greeting: "Hello" };
  const app = new App({ shared: state });
  expect(app.shared).toBe(state);
  app.get("/", (ctx) => ctx.response.text(200, ctx.shared.greeting));
  expect(await (await app.request("/")).text()).toBe("Hello");
  // @ts-expect-error: this Shared has a required property, so `shared` must be given
  const withoutShared = new App<{ database: string }>();
  // @ts-expect-error: the same with other options
  const withLimitsOnly = new App<{ database: string }>({ limits: { workers: 2 } });
  // Optional properties only: the empty default fits the type.
  const optional = new App<{ visits?: number }>();
  expect(optional.shared.visits).toBeUndefined();
  await Promise.all([app, withoutShared, withLimitsOnly, optional].map((each) => each.stop()));
});

test("new App() with something other than an options object is a clear TypeError", () => {
  // @ts-expect-error: not an options object
  expect(() => new App("limits")).toThrow("corral: new App() takes an options object, got limits");
  // @ts-expect-error: null is not an options object either
  expect(() => new App(null)).toThrow("corral: new App() takes an options object, got null");
});

test("a misspelt option of new App(), app.listen() or app.route() is a TypeError naming it, not ignored", async () => {
  // Casts stand for JavaScript callers: the types refuse these.
  expect(() => new App({ limts: { workers: 2 } } as never)).toThrow(
    'corral: new App() has no option "limts" (its options: shared, limits, io, log, errorFormat)',
  );
  const app = new App({ log: null });
  expect(() =>
    app.route("PUT", "/upload", (ctx) => ctx.response.setStatus(204), { stream: true } as never),
  ).toThrow('corral: app.route() has no option "stream" (its options: body)');
  app.route("PUT", "/upload", (ctx) => ctx.response.setStatus(204), { body: "stream" });
  expect(() => app.listen({ port: 0, log: null, reuseport: true } as never)).toThrow(
    'corral: app.listen() has no option "reuseport" (its options: hostname, port, reusePort, log)',
  );
  // The refused call changed nothing: the App still listens, with its one route.
  const server = app.listen({ hostname: "127.0.0.1", port: 0, reusePort: false, log: null });
  using client = await RawClient.connect(server.port);
  client.send("PUT /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
  expect((await client.response()).status).toBe(204);
  await expect(app.stop({ grace: 10 } as never)).rejects.toThrow(
    'corral: stop() has no option "grace" (its options: graceMs)',
  );
  await app.stop({ graceMs: 10 });
});
