import { expect, test } from "bun:test";
import { App, middleware } from "corral";
import { getPipelined } from "../support/get-pipelined.ts";

/**
 * A before hook that answers must return "stop". One that drafts its answer and forgets it lets
 * the handler run: the handler's own answer used to replace the hook's without a word, so an
 * authentication check that answered 401 sent the page it guarded. Now the handler's replacing
 * call is a TypeError: a 500, logged, and nothing of the handler's answer on the wire.
 */
test("a handler cannot replace an answer a before hook drafted without 'stop'; nothing it drafted is sent", async () => {
  const logged: string[] = [];
  const forgetful = middleware({
    before(ctx) {
      if (ctx.request.header("authorization") === undefined) {
        ctx.response.text(401, "sign in first\n"); // and no "stop"
      }
    },
  });
  const app = new App({ log: { error: (...values) => logged.push(values.map(String).join(" ")) } })
    .use(forgetful)
    .use(
      middleware({
        async before(ctx) {
          await ctx.sleep(1);
          if (ctx.request.path === "/async") ctx.response.setStatus(403);
        },
      }),
    );
  app.get("/secret", (ctx) => ctx.response.text(200, "the secret page\n"));
  app.get("/async", async (ctx) => {
    await ctx.sleep(1);
    ctx.response.json(200, { secret: true });
  });
  app.get("/headers-only", (ctx) => ctx.response.header("X-Handler", "ran"));
  app.get("/redirect", (ctx) => ctx.response.redirect(302, "/secret-place"));
  const responses = await getPipelined(app, ["/secret", "/async", "/headers-only", "/redirect"]);
  expect(responses.map((response) => `${response.status} ${response.text}`)).toEqual([
    "500 Internal Server Error\n",
    "500 Internal Server Error\n",
    "401 sign in first\n", // the handler added a header only: the hook's answer stands
    "500 Internal Server Error\n",
  ]);
  expect(responses[2]!.header("x-handler")).toBe("ran");
  expect(responses.some((response) => response.text.includes("secret"))).toBe(false);
  expect(logged.map((line) => line.slice(line.indexOf("TypeError: ") + 11))).toEqual([
    'corral: a body method (text, json, bytes, borrowBody) in the handler would replace the answer a before hook drafted (status 401) without returning "stop"; a before hook that answers returns "stop", and the handler does not run',
    expect.stringContaining("would replace the answer a before hook drafted (status 403)"),
    expect.stringContaining("corral: redirect() in the handler would replace the answer"),
  ]);
  await app.stop();
});

test("what hooks may still do: 'stop' answers, a printed prefix the handler appends to, after hooks replacing the body", async () => {
  const app = new App({ log: null })
    .use(
      middleware({
        before(ctx) {
          if (ctx.request.path === "/stopped") {
            ctx.response.text(401, "stopped\n");
            return "stop";
          }
          if (ctx.request.path === "/prefixed") ctx.response.print("header line\n");
        },
      }),
    )
    .use(
      middleware({
        after(ctx) {
          if (ctx.request.path === "/wrapped") {
            ctx.response.replaceBody(new TextEncoder().encode("[wrapped]"));
          }
        },
      }),
    );
  app.get("/stopped", (ctx) => ctx.response.text(200, "never\n"));
  app.get("/prefixed", (ctx) => ctx.response.print("handler line\n"));
  app.get("/wrapped", (ctx) => ctx.response.text(200, "inner"));
  const responses = await getPipelined(app, ["/stopped", "/prefixed", "/wrapped"]);
  expect(responses.map((response) => `${response.status} ${response.text}`)).toEqual([
    "401 stopped\n",
    "200 header line\nhandler line\n",
    "200 [wrapped]",
  ]);
  await app.stop();
});

/**
 * An after hook's header lines are its own, not a before hook's: when a later after hook fails
 * on a before hook's "stop" answer, the error's answer got them twice (the first pass's kept as
 * if a before hook had drafted them, then the second pass's); and the bare 500 left when an
 * after hook fails on the answer to a before hook's error kept them, where after a handler it
 * does not. Found by test/app/pipeline-fuzz.test.ts.
 */
test("after hooks' headers are on an answer once, and a bare 500 keeps only the before hooks'", async () => {
  const tagging = (name: string) =>
    middleware({
      before(ctx) {
        ctx.response.header(`X-Before-${name}`, "1");
      },
      after(ctx) {
        ctx.response.header(`X-After-${name}`, "1");
      },
    });
  const failingAfter = (when: "onSuccess" | "always") =>
    middleware({
      after(ctx) {
        if (when === "always" || ctx.error === undefined) throw new Error("after hook broke");
      },
    });
  const stopping = middleware({
    before(ctx) {
      ctx.response.text(200, "stopped");
      return "stop";
    },
  });
  const refusing = middleware({
    before() {
      throw new Error("before hook broke");
    },
  });
  const headersOf = (response: Response) =>
    [...response.headers.keys()]
      .filter((name) => name.startsWith("x-"))
      .map((name) => `${name}: ${response.headers.get(name)}`);

  const stopped = new App({ log: null })
    .use(failingAfter("onSuccess"))
    .use(tagging("a"))
    .use(stopping);
  const refused = new App({ log: null })
    .use(failingAfter("always"))
    .use(tagging("a"))
    .use(refusing);
  for (const app of [stopped, refused]) app.get("/", (ctx) => ctx.response.text(200, "handled"));
  const answers = [await stopped.request("/"), await refused.request("/")];
  expect(answers.map((response) => [response.status, ...headersOf(response)])).toEqual([
    [500, "x-after-a: 1", "x-before-a: 1"],
    [500, "x-before-a: 1"],
  ]);
  await Promise.all([stopped.stop(), refused.stop()]);
});

test("the router's 404 or 405 cannot replace an answer a before hook drafted without 'stop' either, and the log names the router", async () => {
  const logged: string[] = [];
  const app = new App({ log: { error: (...values) => logged.push(values.map(String).join(" ")) } });
  app.use(
    middleware({
      before(ctx) {
        ctx.response.text(401, "sign in first\n"); // and no "stop"
      },
    }),
  );
  app.get("/", (ctx) => ctx.response.text(200, "home\n"));
  const answers = [await app.request("/missing"), await app.request("/", { method: "DELETE" })];
  expect(answers.map((response) => response.status)).toEqual([500, 500]);
  expect(
    logged.map(
      (line) => /TypeError: corral: no route serves (\S+ \S+), and the router/.exec(line)?.[1],
    ),
  ).toEqual(["GET /missing", "DELETE /"]);
  await app.stop();
});
