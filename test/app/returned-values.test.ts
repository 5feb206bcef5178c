import { expect, test } from "bun:test";
import { App, type Context, middleware } from "corral";
import { getPipelined } from "../support/get-pipelined.ts";

type AnyHandler = (ctx: Context<object, Record<string, string>, object>) => unknown;

/**
 * Handlers written as Bun.serve, Hono and Elysia handlers are, returning their answer. The types
 * forbid it; a JavaScript caller (or a cast) gets a 500 and a log line, not an empty 200.
 */
const returning: Record<string, AnyHandler> = {
  "/response": () => new Response("hi", { status: 201 }),
  "/async-response": async () => Response.json({ a: 1 }),
  "/string": () => "hello",
  "/object": () => ({ message: "hello" }),
  "/array": async () => [1, 2],
  "/number-after-draft": (ctx) => {
    ctx.response.text(200, "drafted");
    return 1;
  },
  "/null": () => null,
};

function quietApp(logged: string[]) {
  return new App({ log: { error: (...values) => logged.push(values.map(String).join(" ")) } });
}

test("a route handler that returns or resolves to a value is a 500 and logged, over TCP", async () => {
  const logged: string[] = [];
  const app = quietApp(logged);
  for (const [path, handler] of Object.entries(returning)) app.get(path, handler as never);
  app.get("/nothing", () => {});
  app.get("/async-nothing", async () => {});
  app.get("/ok", (ctx) => ctx.response.text(200, "ok"));
  const paths = [...Object.keys(returning), "/nothing", "/async-nothing", "/ok"];
  const responses = await getPipelined(app, paths);
  expect(responses.map((response) => `${response.statusLine} ${response.text}`)).toEqual([
    ...Object.keys(returning).map(
      () => "HTTP/1.1 500 Internal Server Error Internal Server Error\n",
    ),
    "HTTP/1.1 200 OK ",
    "HTTP/1.1 200 OK ",
    "HTTP/1.1 200 OK ok",
  ]);
  const described = logged.map((line) => /returned (.*?), which is not sent/.exec(line)?.[1]);
  expect(described).toEqual([
    "a Response (status 201)",
    "a Response (status 200)",
    "a string",
    "an object",
    "an array",
    "a number",
    "null",
  ]);
  expect(logged[0]).toContain("corral: GET /response answered 500 after an error: TypeError:");
  expect(logged[0]).toContain("and a handler returns nothing");
  await app.stop();
});

test("before and after hooks that return values are 500s; undefined and 'stop' still work", async () => {
  const logged: string[] = [];
  const answers = middleware({
    before(ctx) {
      const path = ctx.request.path;
      if (path === "/before-value") return new Response("no") as never;
      if (path === "/before-async-value") return Promise.resolve(true) as never;
      if (path === "/stop") {
        ctx.response.text(403, "stopped");
        return "stop";
      }
    },
    after(ctx) {
      if (ctx.request.path === "/after-value") return 7 as never;
      if (ctx.request.path === "/after-async-value") return Promise.resolve("x") as never;
    },
  });
  const app = quietApp(logged).use(answers);
  const paths = [
    "/before-value",
    "/before-async-value",
    "/stop",
    "/after-value",
    "/after-async-value",
    "/fine",
  ];
  for (const path of paths) app.get(path, (ctx) => ctx.response.text(200, "handler"));
  const responses = await getPipelined(app, paths);
  expect(responses.map((response) => response.status)).toEqual([500, 500, 403, 500, 500, 200]);
  expect(responses[2]!.text).toBe("stopped");
  expect(responses[5]!.text).toBe("handler");
  // An after hook runs again on the error's answer (as on every error's), fails the same way
  // there, and leaves a bare 500: logged once for each.
  expect(logged.map((line) => /: (a|an) (\w+ hook) returned/.exec(line)?.[2])).toEqual([
    "before hook",
    "before hook",
    "after hook",
    "after hook",
    "after hook",
    "after hook",
  ]);
  expect(logged[2]).toContain(
    "an after hook failed while answering an error; the answer is a bare 500",
  );
  expect(logged[0]).toContain('a before hook returns nothing, or "stop" once it answered');
  await app.stop();
});
