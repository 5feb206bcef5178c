import { expect, test } from "bun:test";
import { App, type Context, decodeText, percentDecodeInto } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

test("routes: static, :name captures (decoded), a trailing *rest, typed from the path literal", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/users/:id", (ctx) => {
    const id: string = ctx.params.id;
    // @ts-expect-error: "/users/:id" has no capture named nope
    ctx.params.nope;
    ctx.response.text(200, `user ${id}`);
  });
  app.route("GET", "/files/*rest", (ctx) => ctx.response.text(200, `rest=${ctx.params.rest}`));
  app.route("GET", "/static", (ctx) => ctx.response.text(200, "static"));
  const answers = await Promise.all(
    ["/users/42", "/users/a%20b", "/files/a/b/c.txt", "/files/", "/static", "/users/"].map(
      async (path) => {
        const response = await app.request(path);
        return [response.status, await response.text()];
      },
    ),
  );
  expect(answers).toEqual([
    [200, "user 42"],
    [200, "user a b"],
    [200, "rest=a/b/c.txt"],
    [200, "rest="],
    [200, "static"],
    [404, "Not Found\n"],
  ]);
  await app.stop();
});

test("404 for an unknown path, 405 with Allow for another method, HEAD by GET, 501 for unknown methods", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/thing", (ctx) => ctx.response.text(200, "thing body"));
  app.route("POST", "/thing", (ctx) => ctx.response.text(201, "made"));
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "DELETE /thing HTTP/1.1\r\nHost: h\r\n\r\n" +
      "GET /missing HTTP/1.1\r\nHost: h\r\n\r\n" +
      "BREW /thing HTTP/1.1\r\nHost: h\r\n\r\n" +
      "OPTIONS /thing HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const responses = await client.responses(4);
  expect(
    responses.map((response) => [
      response.statusLine,
      response.header("allow"),
      response.header("content-length"),
      response.text,
    ]),
  ).toEqual([
    ["HTTP/1.1 405 Method Not Allowed", "GET, POST, HEAD, OPTIONS", "19", "Method Not Allowed\n"],
    ["HTTP/1.1 404 Not Found", undefined, "10", "Not Found\n"],
    ["HTTP/1.1 501 Not Implemented", undefined, "16", "Not Implemented\n"],
    ["HTTP/1.1 204 No Content", "GET, POST, HEAD, OPTIONS", undefined, ""],
  ]);
  using head = await RawClient.connect(server.port);
  head.send("HEAD /thing HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  await head.waitForClose();
  expect(head.receivedText).toMatch(
    /^HTTP\/1\.1 200 OK\r\n[\s\S]*Content-Length: 10\r\n[\s\S]*\r\n\r\n$/,
  );
  await app.stop();
});

test("routes sharing a path by pattern each answer their method on the wire; OPTIONS and 405 allow them all", async () => {
  const app = new App({ shared: {} });
  app.get("/users/me", (ctx) => ctx.response.text(200, "me"));
  app.delete("/users/:id", (ctx) => ctx.response.text(200, `deleted ${ctx.params.id}`));
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    ["GET", "DELETE", "OPTIONS", "PUT"]
      .map((method) => `${method} /users/me HTTP/1.1\r\nHost: h\r\n\r\n`)
      .join(""),
  );
  const responses = await client.responses(4);
  expect(
    responses.map((response) => [response.status, response.header("allow"), response.text]),
  ).toEqual([
    [200, undefined, "me"],
    [200, undefined, "deleted me"],
    [204, "GET, DELETE, HEAD, OPTIONS", ""],
    [405, "GET, DELETE, HEAD, OPTIONS", "Method Not Allowed\n"],
  ]);
  await app.stop();
});

test("paths and queries as browsers send them, [ ] { } | ^ raw, reach their routes over the wire", async () => {
  const app = new App({ shared: {} });
  const buffer = new Uint8Array(256);
  const decodedQuery = (ctx: Context<unknown, object, object>) =>
    [...ctx.request.query()].map(({ nameRaw, valueRaw }) => [
      decodeText(percentDecodeInto(nameRaw, buffer)),
      decodeText(percentDecodeInto(valueRaw, buffer)),
    ]);
  app.route("GET", "/dir/[all]", (ctx) => ctx.response.json(200, { all: ctx.request.path }));
  app.route("GET", "/dir/:id", (ctx) =>
    ctx.response.json(200, { id: ctx.params.id, query: decodedQuery(ctx) }),
  );
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /dir/[all] HTTP/1.1\r\nHost: h\r\n\r\n" +
      "GET /dir/[a|b^c]?files[]=x&q={a}&a=b|c&x=^&t=`1` HTTP/1.1\r\nHost: h\r\n\r\n" +
      "GET /dir/%5Bx%5D?files%5B%5D=%7B%7D HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const responses = await client.responses(3);
  expect(responses.map((response) => [response.status, JSON.parse(response.text)])).toEqual([
    [200, { all: "/dir/[all]" }],
    [
      200,
      {
        id: "[a|b^c]",
        query: [
          ["files[]", "x"],
          ["q", "{a}"],
          ["a", "b|c"],
          ["x", "^"],
          ["t", "`1`"],
        ],
      },
    ],
    [200, { id: "[x]", query: [["files[]", "{}"]] }],
  ]);
  await app.stop();
});

test("OPTIONS * is a 204 with Allow listing every method the App serves, whatever its routes", async () => {
  const bare = new App({ shared: {} });
  const app = new App({ shared: {} });
  app.route("GET", "/a", (ctx) => ctx.response.text(200, "a"));
  app.route("POST", "/b/:id", (ctx) => ctx.response.text(200, "b"));
  app.route("PUT", "/files/*rest", (ctx) => ctx.response.text(200, "rest"));
  app.route("DELETE", "/a", (ctx) => ctx.response.text(200, "deleted"));
  const request = "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n";
  const answers = [];
  for (const each of [app, bare]) {
    const server = listenQuietly(each);
    using client = await RawClient.connect(server.port);
    client.send(`${request}GET * HTTP/1.1\r\nHost: h\r\n\r\n`);
    const [options, get] = await client.responses(2);
    answers.push([options!.statusLine, options!.header("allow"), options!.text, get!.status]);
    await each.stop();
  }
  expect(answers).toEqual([
    ["HTTP/1.1 204 No Content", "GET, POST, PUT, DELETE, HEAD, OPTIONS", "", 400],
    ["HTTP/1.1 204 No Content", "OPTIONS", "", 400],
  ]);
});

test("an endpoint instance handles its lower-case methods with a stable this", async () => {
  class Counter {
    count = 0;
    get(ctx: Context<{ label: string }, { name: string }, object>) {
      this.count++;
      ctx.response.text(200, `${ctx.shared.label} ${ctx.params.name} ${this.count}`);
    }
    post(ctx: Context<{ label: string }, { name: string }, object>) {
      this.count += 10;
      ctx.response.text(200, String(this.count));
    }
  }
  const shared = { label: "counter" };
  const counter = new Counter();
  const app = new App({ shared });
  app.endpoint("/count/:name", counter);
  expect(await (await app.request("/count/a")).text()).toBe("counter a 1");
  expect(await (await app.request("/count/b", { method: "POST" })).text()).toBe("11");
  expect(await (await app.request("/count/c")).text()).toBe("counter c 12");
  expect(counter.count).toBe(12);
  expect(app.shared).toBe(shared);
  await app.stop();
});

test("routes must be registered before listen(); duplicates and bad patterns are TypeErrors", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/a", () => {});
  expect(() => app.route("GET", "/a", () => {})).toThrow("GET /a is registered twice");
  expect(() => app.route("GET", "no-slash", () => {})).toThrow('must start with "/"');
  expect(() => app.route("GET", "/x/*rest/more", () => {})).toThrow("must be the last segment");
  // Set on the params object it set the prototype: ctx.params.__proto__ was an object, the value lost.
  expect(() => app.route("GET", "/p/:__proto__", () => {})).toThrow(
    "a capture cannot be named __proto__ (route /p/:__proto__)",
  );
  expect(() => app.endpoint("/e", {})).toThrow("has no get/post/put/patch/delete/head/options");
  listenQuietly(app);
  expect(() => app.route("GET", "/late", () => {})).toThrow("before listen()");
  await app.stop();
});
