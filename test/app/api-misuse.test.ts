import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, type Context, Duration, HttpError, serveStatic } from "corral";
import { createEngine } from "corral/engine";
import { getPipelined } from "../support/get-pipelined.ts";

// Calls written as another framework's API would be, each of which used to do something other
// than what its writer meant without a word (a middleware that never ran, a route that could
// never run) or fail on a symptom (`undefined is not an object`). Each is now a TypeError that
// names the mistake. The casts stand for JavaScript callers: the types refuse all of these.

test("app.use() refuses a function, an object without hooks, a misspelt hook and a hook that is no function", () => {
  const app = new App();
  const honoStyle = async (_ctx: unknown, next: () => Promise<void>) => await next();
  expect(() => app.use(honoStyle as never)).toThrow(
    "corral: app.use() takes a middleware object ({ before, after, cleanup }), got a function; " +
      "a Hono-style (ctx, next) function becomes a before hook",
  );
  expect(() => app.use(undefined as never)).toThrow("got undefined");
  expect(() => app.use({} as never)).toThrow(
    "corral: a middleware needs a before, after or cleanup hook, and this one has none",
  );
  expect(() => app.use({ befor() {} } as never)).toThrow("this one has none (its members: befor)");
  expect(() => app.use({ before: "auth" } as never)).toThrow(
    "corral: the middleware's before hook must be a function",
  );
});

test("a middleware may be an instance with state: its prototype hooks run, its fields are allowed", async () => {
  class Counter {
    requests = 0;
    before(ctx: Context<object, Readonly<Record<string, string>>, object>): void {
      this.requests++;
      ctx.response.header("X-Requests", String(this.requests));
    }
  }
  const counter = new Counter();
  const app = new App().use(counter);
  app.get("/", (ctx) => ctx.response.text(200, "ok"));
  const response = await app.request("/");
  expect(response.headers.get("x-requests")).toBe("1");
  expect(counter.requests).toBe(1);
  await app.stop();
});

test("a pattern that differs from an earlier one of its method only in capture names is refused; the router is unchanged", async () => {
  const app = new App();
  app.get("/users/:id", (ctx) => ctx.response.text(200, `id ${ctx.params.id}`));
  app.get("/files/*rest", (ctx) => ctx.response.text(200, `rest ${ctx.params.rest}`));
  expect(() => app.get("/users/:name", (ctx) => ctx.response.text(200, ctx.params.name))).toThrow(
    "corral: GET /users/:name could never run: GET /users/:id, registered first, matches the same paths",
  );
  expect(() => app.get("/files/*path", (ctx) => ctx.response.text(200, ctx.params.path))).toThrow(
    "corral: GET /files/*path could never run: GET /files/*rest",
  );
  // Another method, or another shape, is a route of its own.
  app.delete("/users/:name", (ctx) => ctx.response.text(200, `deleted ${ctx.params.name}`));
  app.get("/users/:id/posts", (ctx) => ctx.response.text(200, `posts ${ctx.params.id}`));
  const answers = await Promise.all(
    [
      ["GET", "/users/7"],
      ["DELETE", "/users/7"],
      ["GET", "/users/7/posts"],
      ["GET", "/files/a/b"],
      ["PUT", "/users/7"],
    ].map(async ([method, path]) => {
      const response = await app.request(path!, { method: method! });
      return `${response.status} ${await response.text()}`;
    }),
  );
  expect(answers).toEqual([
    "200 id 7",
    "200 deleted 7",
    "200 posts 7",
    "200 rest a/b",
    "405 Method Not Allowed\n",
  ]);
  await app.stop();
});

test("a HEAD route shadowed by an earlier GET of the same shape (which answers HEAD) is refused", async () => {
  const app = new App();
  app.get("/items/:id", (ctx) => ctx.response.text(200, `item ${ctx.params.id}`));
  expect(() => app.head("/items/:name", (ctx) => ctx.response.setStatus(204))).toThrow(
    "corral: HEAD /items/:name could never run: GET /items/:id, registered first, " +
      "answers HEAD on the same paths; register HEAD /items/:id",
  );
  // Where the GET pattern is, HEAD is a route of its own, and wins over the GET fallback.
  app.head("/items/:id", (ctx) => {
    ctx.response.header("X-Head", ctx.params.id);
    ctx.response.setStatus(204);
  });
  // A HEAD registered first shadows nothing: GET requests pass it by.
  app.head("/tags/:name", (ctx) => ctx.response.setStatus(204));
  app.get("/tags/:id", (ctx) => ctx.response.text(200, `tag ${ctx.params.id}`));
  const head = await app.request("/items/7", { method: "HEAD" });
  const tag = await app.request("/tags/x");
  expect([head.status, head.headers.get("x-head")]).toEqual([204, "7"]);
  expect([tag.status, await tag.text()]).toEqual([200, "tag x"]);
  await app.stop();
});

test("a pattern an earlier catch-all or capture covers (a folder mounted at /, then API routes) is refused; the order that works is served", async () => {
  const site = mkdtempSync(join(tmpdir(), "corral-shadow-"));
  writeFileSync(join(site, "index.html"), "home");
  const refused = new App();
  serveStatic({ root: site }).mount(refused, "/");
  expect(() => refused.get("/api/:id", (ctx) => ctx.response.text(200, ctx.params.id))).toThrow(
    "corral: GET /api/:id could never run: GET /*path, registered first, matches every path it does; register GET /api/:id before it",
  );
  // Other methods are routes of their own.
  refused
    .post("/files/*rest", (ctx) => ctx.response.text(200, ctx.params.rest))
    .delete("/api/:id", (ctx) => ctx.response.setStatus(204));
  expect(() =>
    refused.put("/files/:name/meta", (ctx) => ctx.response.setStatus(204)),
  ).not.toThrow();
  expect(() => refused.post("/files/:name/meta", (ctx) => ctx.response.setStatus(204))).toThrow(
    "POST /files/*rest, registered first, matches every path it does",
  );
  const nested = new App();
  nested.get("/files/:name", (ctx) => ctx.response.text(200, ctx.params.name));
  expect(() => nested.get("/files/:name/meta", (ctx) => ctx.response.setStatus(204))).not.toThrow();
  expect(() => nested.get("/files/*rest", (ctx) => ctx.response.setStatus(204))).not.toThrow();
  expect(() => nested.get("/:section/readme", (ctx) => ctx.response.setStatus(204))).not.toThrow();
  expect(() => nested.get("/files/:other/meta", (ctx) => ctx.response.setStatus(204))).toThrow(
    "GET /files/:name/meta, registered first, matches the same paths",
  );
  expect(() => nested.head("/files/*more/", (ctx) => ctx.response.setStatus(204))).toThrow(
    '"*more" must be the last segment',
  );
  expect(() => nested.head("/files/x/:y", (ctx) => ctx.response.setStatus(204))).toThrow(
    "corral: HEAD /files/x/:y could never run: GET /files/*rest, registered first, answers HEAD on the same paths; register HEAD /files/*rest",
  );

  // API routes first, then the folder: both are served.
  const app = new App();
  app.get("/api/:id", (ctx) => ctx.response.text(200, `api ${ctx.params.id}`));
  serveStatic({ root: site }).mount(app, "/");
  const [api, home] = await Promise.all([app.request("/api/7"), app.request("/")]);
  expect([await api.text(), await home.text()]).toEqual(["api 7", "home"]);
  await Promise.all([app.stop(), refused.stop(), nested.stop()]);
  rmSync(site, { recursive: true });
});

test("response calls in Hono's order (value first) name corral's order, over TCP: 500 and logged", async () => {
  const logged: string[] = [];
  const app = new App({ log: { error: (...values) => logged.push(values.map(String).join(" ")) } });
  // biome-ignore lint/suspicious/noExplicitAny: calls as JavaScript would make them.
  const loose = (ctx: { response: unknown }) => ctx.response as any;
  app.get("/json", (ctx) => loose(ctx).json({ message: "hi" }, 201));
  app.get("/text", (ctx) => loose(ctx).text("hello"));
  app.get("/redirect", (ctx) => loose(ctx).redirect("/elsewhere", 302));
  app.get("/bytes", (ctx) => loose(ctx).bytes(new Uint8Array(1), "application/octet-stream"));
  app.get("/text-number", (ctx) => loose(ctx).text(200, 42));
  const paths = ["/json", "/text", "/redirect", "/bytes", "/text-number"];
  const responses = await getPipelined(app, paths);
  expect(responses.map((response) => response.statusLine)).toEqual(
    paths.map(() => "HTTP/1.1 500 Internal Server Error"),
  );
  expect(logged.map((line) => line.slice(line.indexOf("TypeError: ") + 11))).toEqual([
    "corral: ctx.response.json() takes the status first (json(status, …)), got object as the status",
    'corral: ctx.response.text() takes the status first (text(status, …)), got "hello" as the status',
    'corral: ctx.response.redirect() takes the status first (redirect(status, …)), got "/elsewhere" as the status',
    "corral: ctx.response.bytes() takes the status first (bytes(status, …)), got object as the status",
    "corral: ctx.response.text(status, text) takes a string, got number; json(status, value) sends other values",
  ]);
  await app.stop();
});

test("listen(3000), as Elysia writes it, is a TypeError naming the options object, for the App and the engine", async () => {
  const app = new App();
  expect(() => app.listen(3000 as never)).toThrow(
    "corral: listen() takes an options object, as listen({ port: 3000 }), got 3000",
  );
  const engine = createEngine({ handler() {}, log: null });
  expect(() => engine.listen(3000 as never)).toThrow(
    "corral: listen() takes an options object, as listen({ port: 3000 }), got 3000",
  );
  await engine.stop();
  await app.stop();
});

test("onError, notFound and methodNotAllowed are set once: a second call is a TypeError and the first stays", async () => {
  const app = new App({ log: null });
  app.onError((_error, ctx) => ctx.response.text(503, "first mapper\n"));
  app.notFound((ctx) => ctx.response.text(404, "first miss\n"));
  app.methodNotAllowed((ctx) => ctx.response.text(405, "first method\n"));
  expect(() => app.onError((_error, ctx) => ctx.response.text(500, "second"))).toThrow(
    "corral: app.onError() was called already; an App has one, so the second would replace the first: do both in one function",
  );
  expect(() => app.notFound((ctx) => ctx.response.text(404, "second"))).toThrow(
    "corral: app.notFound() was called already",
  );
  expect(() => app.methodNotAllowed((ctx) => ctx.response.text(405, "second"))).toThrow(
    "corral: app.methodNotAllowed() was called already",
  );
  app.get("/fails", () => {
    throw new Error("mapped by the first");
  });
  const answers = await Promise.all(
    [
      ["GET", "/fails"],
      ["GET", "/nowhere"],
      ["POST", "/fails"],
    ].map(async ([method, path]) => {
      const response = await app.request(path!, { method: method! });
      return `${response.status} ${await response.text()}`;
    }),
  );
  expect(answers).toEqual(["503 first mapper\n", "404 first miss\n", "405 first method\n"]);
  await app.stop();
});

test("ctx.sleep of a string or a plain object, and header() without a name, are TypeErrors, not a wait of nothing", async () => {
  const logged: string[] = [];
  const app = new App({ log: { error: (...values) => logged.push(values.map(String).join(" ")) } });
  app.get("/string", async (ctx) => {
    await ctx.sleep("1s" as never);
    ctx.response.text(200, "slept");
  });
  app.get("/object", async (ctx) => {
    await ctx.sleep({ seconds: 1 } as never);
    ctx.response.text(200, "slept");
  });
  app.get("/duration", async (ctx) => {
    await ctx.sleep(Duration.fromMilliseconds(1));
    ctx.response.text(200, "slept");
  });
  app.get("/header", (ctx) =>
    ctx.response.text(200, String((ctx.request.header as () => string)())),
  );
  const responses = await getPipelined(app, ["/string", "/object", "/duration", "/header"]);
  expect(responses.map((response) => `${response.status} ${response.text}`)).toEqual([
    "500 Internal Server Error\n",
    "500 Internal Server Error\n",
    "200 slept",
    "500 Internal Server Error\n",
  ]);
  expect(logged.map((line) => line.slice(line.indexOf("TypeError: ") + 11))).toEqual([
    'corral: a duration is a Duration (Duration.fromSeconds(1)) or a number of milliseconds, got the string "1s"',
    "corral: a duration is a Duration (Duration.fromSeconds(1)) or a number of milliseconds, got [object Object]",
    "corral: ctx.request.header(name) takes a field name, got undefined",
  ]);
  await app.stop();
});

test("HttpError in Hono's form (options second) is a TypeError at the throw, never '[object Object]' sent", async () => {
  expect(() => new HttpError(404, { message: "gone" } as never)).toThrow(
    "corral: new HttpError(status, message, options) takes the message as a string, got object; options ({ headers, body, cause }) come third",
  );
  expect(() => new HttpError("not found" as never, 404 as never)).toThrow(
    "corral: HttpError status must be 400-599, got not found",
  );
  const logged: string[] = [];
  const app = new App({ log: { error: (...values) => logged.push(values.map(String).join(" ")) } });
  app.get("/hono", () => {
    throw new HttpError(404, { message: "gone" } as never);
  });
  app.get("/corral", () => {
    throw new HttpError(404, "gone");
  });
  const responses = await getPipelined(app, ["/hono", "/corral"]);
  expect(responses.map((response) => `${response.status} ${response.text}`)).toEqual([
    "500 Internal Server Error\n",
    "404 gone\n",
  ]);
  expect(logged).toHaveLength(1);
  expect(logged[0]).toContain("takes the message as a string, got object");
  await app.stop();
});

test("listen() a second time says why: an entry module for serve() must not listen itself", async () => {
  const app = new App({ log: null }).get("/", (ctx) => ctx.response.text(200, "ok"));
  app.listen({ port: 0 });
  expect(() => app.listen({ port: 0 })).toThrow(
    "corral: this App is already listening (a module given to serve() or the corral command " +
      "exports its App and must not call listen() itself)",
  );
  await app.stop();
});
