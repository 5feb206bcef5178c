import { expect, test } from "bun:test";
import { App, HttpError, middleware, type RequestOutcome } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";

function tracing(name: string, log: string[]) {
  return middleware({
    before() {
      log.push(`${name} before`);
    },
    after() {
      log.push(`${name} after`);
    },
    cleanup(_ctx, outcome: RequestOutcome) {
      log.push(`${name} cleanup ${outcome}`);
    },
  });
}

test("before in order, after in reverse on every answer, cleanup always; once per request", async () => {
  const log: string[] = [];
  const app = new App({ shared: {} }).use(tracing("a", log)).use(tracing("b", log));
  app.route("GET", "/", (ctx) => {
    log.push("handler");
    ctx.response.text(200, "ok");
  });
  app.route("GET", "/fail", () => {
    log.push("handler");
    throw new Error("nope");
  });
  expect((await app.request("/")).status).toBe(200);
  expect(log).toEqual([
    "a before",
    "b before",
    "handler",
    "b after",
    "a after",
    "b cleanup success",
    "a cleanup success",
  ]);
  log.length = 0;
  expect((await app.request("/fail")).status).toBe(500);
  // The after hooks run on the error's answer too: every answer carries what they add.
  expect(log).toEqual([
    "a before",
    "b before",
    "handler",
    "b after",
    "a after",
    "b cleanup error",
    "a cleanup error",
  ]);
  await app.stop();
});

test("middleware with only one kind of hook each; hooks are read when use() is called", async () => {
  const log: string[] = [];
  const afterOnly = { after: () => void log.push("after") };
  const cleanupOnly = {
    cleanup: (_ctx: unknown, outcome: RequestOutcome) => void log.push(outcome),
  };
  const app = new App({ shared: {} })
    .use(middleware({ before: () => void log.push("before") }))
    .use(afterOnly)
    .use(cleanupOnly);
  // Added after use(): the chain keeps the hooks it was given.
  Object.assign(afterOnly, { before: () => void log.push("late before") });
  app.route("GET", "/", (ctx) => {
    log.push("handler");
    ctx.response.text(200, "ok");
  });
  expect((await app.request("/")).status).toBe(200);
  expect(log).toEqual(["before", "handler", "after", "success"]);
  await app.stop();
});

test("asynchronous hooks and handlers keep the order, the stop and the error rules", async () => {
  const log: string[] = [];
  const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
  const outer = middleware({
    async before(ctx) {
      await tick();
      log.push("outer before");
      if (ctx.request.path === "/stop") {
        ctx.response.text(429, "slow down");
        return "stop";
      }
    },
    async after() {
      await tick();
      log.push("outer after");
    },
    cleanup: (_ctx, outcome: RequestOutcome) => void log.push(`outer cleanup ${outcome}`),
  });
  const app = new App({ shared: {} }).use(outer).use(tracing("inner", log));
  app.route("GET", "/", async (ctx) => {
    await tick();
    log.push("handler");
    ctx.response.text(200, "ok");
  });
  app.route("GET", "/fail", async () => {
    await tick();
    throw new HttpError(418, "teapot");
  });
  const ok = await app.request("/");
  expect([ok.status, await ok.text(), log.splice(0)]).toEqual([
    200,
    "ok",
    [
      "outer before",
      "inner before",
      "handler",
      "inner after",
      "outer after",
      "inner cleanup success",
      "outer cleanup success",
    ],
  ]);
  const stopped = await app.request("/stop");
  expect([stopped.status, await stopped.text(), log.splice(0)]).toEqual([
    429,
    "slow down",
    ["outer before", "outer after", "outer cleanup success"],
  ]);
  const failed = await app.request("/fail");
  expect([failed.status, log.splice(0)]).toEqual([
    418,
    [
      "outer before",
      "inner before",
      "inner after",
      "outer after",
      "inner cleanup error",
      "outer cleanup error",
    ],
  ]);
  await app.stop();
});

test("a before hook may answer and stop the chain", async () => {
  const log: string[] = [];
  const guard = middleware({
    before(ctx) {
      if (ctx.request.header("x-key") !== "secret") {
        ctx.response.text(403, "forbidden");
        return "stop";
      }
    },
    after() {
      log.push("guard after");
    },
  });
  const app = new App({ shared: {} }).use(guard).use(tracing("inner", log));
  app.route("GET", "/", (ctx) => ctx.response.text(200, "in"));
  const denied = await app.request("/");
  expect([denied.status, await denied.text(), log]).toEqual([403, "forbidden", ["guard after"]]);
  log.length = 0;
  const allowed = await app.request("/", { headers: { "x-key": "secret" } });
  expect([allowed.status, log]).toEqual([
    200,
    ["inner before", "inner after", "guard after", "inner cleanup success"],
  ]);
  await app.stop();
});

test("typed locals: a middleware's locals are typed in later handlers; missing ones are type errors", async () => {
  const auth = middleware<{ user: string }>({
    async before(ctx) {
      const user = ctx.request.header("x-user");
      if (user === undefined)
        throw new HttpError(401, "who are you?", { headers: { "WWW-Authenticate": "X" } });
      ctx.locals.user = user;
    },
  });
  const requestId = middleware<{ requestId: number }, { user: string }>({
    before(ctx) {
      ctx.locals.requestId = ctx.locals.user.length;
    },
  });
  const app = new App({ shared: {} }).use(auth).use(requestId);
  app.route("GET", "/me", (ctx) => {
    const user: string = ctx.locals.user;
    const id: number = ctx.locals.requestId;
    // @ts-expect-error: no middleware added "role"
    ctx.locals.role;
    ctx.response.text(200, `${user} #${id}`);
  });
  const bare = new App({ shared: {} });
  // @ts-expect-error: requestId needs the "user" local that only auth adds
  bare.use(requestId);
  const ok = await app.request("/me", { headers: { "x-user": "ada" } });
  const anonymous = await app.request("/me");
  expect([await ok.text(), anonymous.status, anonymous.headers.get("www-authenticate")]).toEqual([
    "ada #3",
    401,
    "X",
  ]);
  await app.stop();
  await bare.stop();
});

test("cleanup runs when the client disconnects and when the request deadline passes", async () => {
  const outcomes: string[] = [];
  const app = new App({
    shared: {},
    limits: { requestDeadlineMs: 80, sweepIntervalMs: 5 },
  }).use(
    middleware<{ path: string }>({
      before(ctx) {
        ctx.locals.path = ctx.request.path;
      },
      // The request may be gone by cleanup time (a disconnect): use what before() kept.
      cleanup(ctx, outcome) {
        outcomes.push(`${ctx.locals.path} ${outcome}`);
      },
    }),
  );
  app.route("GET", "/wait", async (ctx) => {
    await ctx.sleep(60_000).catch(() => {});
  });
  const log = console.log;
  console.log = () => {};
  const server = app.listen({ port: 0 });
  console.log = log;
  const leaving = await RawClient.connect(server.port);
  leaving.send("GET /wait HTTP/1.1\r\nHost: h\r\n\r\n");
  // On a loaded machine the 80 ms deadline may pass before the poll sees the handler running.
  await waitUntil(
    () => server.stats().workersBusy === 1 || outcomes.length === 1,
    "the handler to start",
  );
  leaving.destroy();
  await waitUntil(() => outcomes.length === 1, "cleanup after the disconnect");
  using staying = await RawClient.connect(server.port);
  staying.send("GET /wait HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await staying.response();
  await waitUntil(() => outcomes.length === 2, "cleanup after the deadline");
  expect([response.status, outcomes]).toEqual([503, ["/wait aborted", "/wait aborted"]]);
  await app.stop();
});
