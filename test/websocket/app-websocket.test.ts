import { expect, test } from "bun:test";
import { App, HttpError, middleware } from "../../src/index.ts";

const auth = middleware<{ user: string }>({
  before(ctx) {
    const user = ctx.request.header("x-user");
    if (user === undefined) throw new HttpError(401, "who are you?");
    ctx.locals.user = user;
  },
});

function chatApp(events: unknown[] = []) {
  const app = new App({ shared: { greeting: "hi" } }).use(auth);
  app.ws("/rooms/:name", {
    upgrade: (ctx) => ({ user: ctx.locals.user, greeting: ctx.shared.greeting }),
    open(socket) {
      socket.subscribe(socket.params.name);
      events.push(["open", socket.data.user, socket.params.name]);
    },
    message(socket, message) {
      socket.publish(socket.params.name, `${socket.data.user}: ${String(message)}`);
    },
    close(socket, code, reason) {
      events.push(["close", socket.data.user, code, reason]);
    },
  });
  app.ws("/refuse", {
    upgrade() {
      throw new HttpError(403, "not today");
    },
    message() {},
  });
  return app;
}

test("middleware runs on the upgrade: its locals and the params become the socket's typed data", async () => {
  const events: unknown[] = [];
  const app = chatApp(events);
  const ada = await app.connectWebSocket("/rooms/tea", { headers: { "X-User": "ada" } });
  const bob = await app.connectWebSocket("/rooms/tea", { headers: { "X-User": "bob" } });
  ada.send("hello");
  expect([await ada.next(), await bob.next()]).toEqual(["ada: hello", "ada: hello"]);
  bob.close(4001, "bye");
  expect(await bob.closed).toEqual({ code: 4001, reason: "" });
  ada.close();
  await ada.closed;
  expect(events).toEqual([
    ["open", "ada", "tea"],
    ["open", "bob", "tea"],
    ["close", "bob", 4001, "bye"],
    ["close", "ada", 1000, ""],
  ]);
  expect(app.rooms.stats()).toEqual({
    rooms: 0,
    memberships: 0,
    joinsRefused: 0,
    publishes: 1,
    deliveries: 2,
    refused: 0,
  });
  const { webSockets } = app.stats();
  expect([webSockets.accepted, webSockets.open, webSockets.closes.normal]).toEqual([2, 0, 2]);
  await app.stop();
});

test("refusals: 401 from middleware, an HttpError from upgrade, 403 for a foreign Origin", async () => {
  const app = chatApp();
  const statuses = await Promise.all([
    app.connectWebSocket("/rooms/tea").catch((error) => error.status),
    app
      .connectWebSocket("/refuse", { headers: { "X-User": "ada" } })
      .catch((error) => error.status),
    app
      .connectWebSocket("/rooms/tea", {
        headers: { "X-User": "ada", Origin: "http://evil.example" },
      })
      .catch((error) => error.status),
  ]);
  expect(statuses).toEqual([401, 403, 403]);
  const plain = await app.request("/rooms/tea", { headers: { "X-User": "ada" } });
  expect([plain.status, await plain.text()]).toEqual([400, "Upgrade: websocket is missing\n"]);
  await app.stop();
});

test("misuse is a TypeError at registration", () => {
  const app = new App({ shared: {} });
  expect(() => app.ws("/x", {} as never)).toThrow(TypeError);
  expect(() => app.ws("/x", { message() {}, origins: "http://a" as never })).toThrow(
    "origins must be a list",
  );
  expect(() => app.ws("/x", { message() {}, limits: { maxMessageBytes: 2 ** 30 } })).toThrow(
    "must not exceed the engine limit maxWebSocketMessageBytes",
  );
  expect(() =>
    app.ws("/x", { message() {}, limits: { outboundPolicy: "ignore" as never } }),
  ).toThrow('outboundPolicy must be "close", "closeTryAgain" or "drop"');
});

test("subprotocols: the route's first one the client offered; none when none matches", async () => {
  const app = new App({ shared: {} });
  app.ws("/p", { protocols: ["v2", "v1"], message() {} });
  const both = await app.connectWebSocket("/p", { protocols: ["v1", "v2"] });
  const neither = await app.connectWebSocket("/p", { protocols: ["v3"] });
  expect([
    both.headers.get("sec-websocket-protocol"),
    neither.headers.get("sec-websocket-protocol"),
  ]).toEqual(["v2", undefined]);
  await app.stop();
});
