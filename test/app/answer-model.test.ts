import { expect, test } from "bun:test";
import { App, HttpError, middleware, type StatusError } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

/** Adds a header on every answer from `after`, and notes which answers it saw. */
function stamping(seen: number[]) {
  return middleware({
    after(ctx) {
      seen.push(ctx.response.status);
      ctx.response.header("X-Stamp", "yes");
      ctx.response.header("Vary", "Origin");
    },
  });
}

class QuotaError extends Error implements StatusError {
  readonly httpStatus = 402;
  readonly httpHeaders = { "X-Quota": "0" };
}

function serviceApp(seen: number[], errorFormat: "text" | "problem" = "text") {
  const app = new App({ shared: {}, errorFormat, log: null }).use(stamping(seen));
  app.get("/ok", (ctx) => ctx.response.text(200, "fine"));
  app.post("/json", (ctx) => ctx.response.json(200, ctx.request.json()));
  app.post("/form", (ctx) => ctx.response.json(200, ctx.request.form().length));
  app.get("/http", (ctx) => {
    ctx.response.header("X-Draft", "lost");
    throw new HttpError(409, "taken", {
      headers: { "X-Reason": "dup" },
      body: { errors: [{ path: "/name", message: "taken" }] },
    });
  });
  app.get("/quota", () => {
    throw new QuotaError("out of credit");
  });
  app.get("/boom", () => {
    throw new Error("secret detail");
  });
  return app;
}

test("after hooks run on every answer: success, mapped errors, 404, 405, OPTIONS, 415, 500", async () => {
  const seen: number[] = [];
  const app = serviceApp(seen);
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  const requests = [
    "GET /ok HTTP/1.1\r\nHost: h\r\n\r\n",
    'POST /json HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{"a":',
    "POST /form HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\nContent-Length: 1\r\n\r\nx",
    "GET /http HTTP/1.1\r\nHost: h\r\n\r\n",
    "GET /quota HTTP/1.1\r\nHost: h\r\n\r\n",
    "GET /boom HTTP/1.1\r\nHost: h\r\n\r\n",
    "GET /nowhere HTTP/1.1\r\nHost: h\r\n\r\n",
    "DELETE /ok HTTP/1.1\r\nHost: h\r\n\r\n",
    "OPTIONS /ok HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
  ];
  client.send(requests.join(""));
  const responses = await client.responses(requests.length);
  expect(
    responses.map((response) => [
      response.status,
      response.header("content-type"),
      response.header("x-stamp"),
      response.header("vary"),
      response.header("x-draft"),
      response.header("x-reason") ?? response.header("x-quota") ?? response.header("allow"),
      response.text,
    ]),
  ).toEqual([
    [200, "text/plain; charset=utf-8", "yes", "Origin", undefined, undefined, "fine"],
    [
      400,
      "text/plain; charset=utf-8",
      "yes",
      "Origin",
      undefined,
      undefined,
      expect.stringMatching(/^Bad Request: /),
    ],
    [
      415,
      "text/plain; charset=utf-8",
      "yes",
      "Origin",
      undefined,
      undefined,
      "Unsupported Media Type: expected an application/x-www-form-urlencoded body, got text/plain\n",
    ],
    [
      409,
      "application/json",
      "yes",
      "Origin",
      undefined,
      "dup",
      '{"errors":[{"path":"/name","message":"taken"}]}',
    ],
    [
      402,
      "text/plain; charset=utf-8",
      "yes",
      "Origin",
      undefined,
      "0",
      "Payment Required: out of credit\n",
    ],
    [
      500,
      "text/plain; charset=utf-8",
      "yes",
      "Origin",
      undefined,
      undefined,
      "Internal Server Error\n",
    ],
    [404, "text/plain; charset=utf-8", "yes", "Origin", undefined, undefined, "Not Found\n"],
    [
      405,
      "text/plain; charset=utf-8",
      "yes",
      "Origin",
      undefined,
      "GET, HEAD, OPTIONS",
      "Method Not Allowed\n",
    ],
    [204, undefined, "yes", "Origin", undefined, "GET, HEAD, OPTIONS", ""],
  ]);
  expect(seen).toEqual([200, 400, 415, 409, 402, 500, 404, 405, 204]);
  await app.stop();
});

test('errorFormat "problem": RFC 9457 problem details for mapped errors and router misses', async () => {
  const app = serviceApp([], "problem");
  const answers = [];
  for (const [method, path] of [
    ["GET", "/http"],
    ["GET", "/quota"],
    ["GET", "/boom"],
    ["GET", "/nowhere"],
    ["PUT", "/ok"],
  ] as const) {
    const response = await app.request(path, { method });
    answers.push([response.status, response.headers.get("content-type"), await response.json()]);
  }
  const problem = "application/problem+json";
  expect(answers).toEqual([
    [
      409,
      problem,
      {
        type: "about:blank",
        title: "Conflict",
        status: 409,
        detail: "taken",
        errors: [{ path: "/name", message: "taken" }],
      },
    ],
    [
      402,
      problem,
      {
        type: "about:blank",
        title: "Payment Required",
        status: 402,
        detail: "out of credit",
      },
    ],
    [500, problem, { type: "about:blank", title: "Internal Server Error", status: 500 }],
    [404, problem, { type: "about:blank", title: "Not Found", status: 404 }],
    [405, problem, { type: "about:blank", title: "Method Not Allowed", status: 405 }],
  ]);
  await app.stop();
});

test("notFound and methodNotAllowed handlers answer router misses; after hooks still run", async () => {
  const seen: number[] = [];
  const app = new App({ shared: {} }).use(stamping(seen));
  app.get("/things/:id", (ctx) => ctx.response.json(200, { id: ctx.params.id }));
  // A catch-all serves every method of the paths it matches, /things/1 included: it must not
  // cover /things for the router's own 405 to show.
  app.all("/other/*rest", (ctx) => {
    if (ctx.request.method !== "GET") throw new HttpError(405, "read only");
    ctx.response.text(200, "catch-all");
  });
  app.notFound((ctx) => ctx.response.json(404, { error: `no ${ctx.request.path}` }));
  app.methodNotAllowed((ctx) =>
    ctx.response.json(405, { error: "no", allow: ctx.response.getHeader("allow") }),
  );
  const missing = await app.request("/things/1", { method: "POST" });
  expect([missing.status, missing.headers.get("x-stamp"), await missing.json()]).toEqual([
    405,
    "yes",
    { error: "no", allow: "GET, HEAD, OPTIONS" },
  ]);
  const other = await app.request("/other/elsewhere", { method: "PATCH" });
  expect([other.status, await other.text()]).toEqual([405, "read only\n"]);
  const bare = new App({ shared: {} });
  bare.notFound((ctx) => ctx.response.json(404, { error: `no ${ctx.request.path}` }));
  const notFound = await bare.request("/x");
  expect([notFound.status, await notFound.json()]).toEqual([404, { error: "no /x" }]);
  expect(seen).toEqual([405, 405]);
  await Promise.all([app.stop(), bare.stop()]);
});

test("onError has typed locals, sees every error, and its answer gets the after hooks too", async () => {
  const app = new App({ shared: {}, log: null }).use(
    middleware<{ requestId: string }>({
      before(ctx) {
        ctx.locals.requestId = "r-1";
      },
      after(ctx) {
        ctx.response.header("X-Request-Id", ctx.locals.requestId);
      },
    }),
  );
  const errors: string[] = [];
  app.onError((error, ctx) => {
    const id: string | undefined = ctx.locals.requestId;
    errors.push(`${id} ${(error as Error).message} ${ctx.error === error}`);
    ctx.response.json(503, { retry: true });
  });
  app.get("/", () => {
    throw new Error("down");
  });
  const response = await app.request("/");
  expect([response.status, response.headers.get("x-request-id"), await response.json()]).toEqual([
    503,
    "r-1",
    { retry: true },
  ]);
  expect(errors).toEqual(["r-1 down true"]);
  await app.stop();
});

test("an after hook failing on an error's answer leaves a bare 500, logged once", async () => {
  const logged: unknown[] = [];
  const app = new App({ shared: {}, log: { error: (...values) => logged.push(values[1]) } }).use(
    middleware({
      after(ctx) {
        if (ctx.response.status === 404) throw new Error("hook broke");
        ctx.response.header("X-After", "1");
      },
    }),
  );
  app.get("/", () => {
    throw new HttpError(404, "gone");
  });
  const response = await app.request("/");
  expect([response.status, response.headers.get("x-after"), await response.text()]).toEqual([
    500,
    null,
    "Internal Server Error\n",
  ]);
  expect(logged.map((error) => (error as Error).message)).toEqual(["hook broke"]);
  expect(app.stats().handlerFailures).toBe(1);
  await app.stop();
});

test("after reads the drafted body without a copy and may replace it", async () => {
  const app = new App({ shared: {} }).use(
    middleware({
      after(ctx) {
        const body = ctx.response.body;
        ctx.response.header("X-Length", String(body.length));
        ctx.response.header("X-Type", ctx.response.getHeader("Content-Type") ?? "none");
        ctx.response.removeHeader("X-Secret");
        if (ctx.request.queryString.includes("upper")) {
          ctx.response.replaceBody(Buffer.from(new TextDecoder().decode(body).toUpperCase()));
        }
      },
    }),
  );
  const big = new Uint8Array(4096).fill(0x61);
  app.get("/", (ctx) => {
    ctx.response.header("X-Secret", "1");
    ctx.response.header("x-secret", "2");
    ctx.response.text(200, "hello");
  });
  app.get("/borrowed", (ctx) => ctx.response.borrowBody(200, "text/plain", big));
  const plain = await app.request("/");
  const upper = await app.request("/?upper");
  const borrowed = await app.request("/borrowed?upper");
  expect(
    await Promise.all(
      [plain, upper, borrowed].map(async (response) => [
        response.headers.get("x-length"),
        response.headers.get("x-type"),
        response.headers.get("x-secret"),
        (await response.text()).slice(0, 5),
      ]),
    ),
  ).toEqual([
    ["5", "text/plain; charset=utf-8", null, "hello"],
    ["5", "text/plain; charset=utf-8", null, "HELLO"],
    ["4096", "text/plain", null, "AAAAA"],
  ]);
  await app.stop();
});

test("methods are a typed union: anything else is a TypeError at registration", () => {
  const app = new App({ shared: {} });
  // @ts-expect-error: methods are upper case
  expect(() => app.route("get", "/", () => {})).toThrow(
    'corral: "get" is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (methods are case-sensitive, RFC 9110 §9.1: write "GET")',
  );
  // @ts-expect-error: not a method
  expect(() => app.route("GTE", "/", () => {})).toThrow(TypeError);
  expect(() => app.get("/", () => {})).not.toThrow();
});

test("headers middleware set in before survive error mapping; the handler's draft does not", async () => {
  const app = new App({ shared: {}, log: null })
    .use(
      middleware({
        before(ctx) {
          ctx.response.header("X-Before", "one");
        },
      }),
    )
    .use(
      middleware({
        async before(ctx) {
          await Promise.resolve();
          ctx.response.header("X-Async-Before", "two");
          if (ctx.request.path === "/deny") throw new HttpError(403, "no");
        },
      }),
    );
  app.get("/fail", (ctx) => {
    ctx.response.header("X-Draft", "lost");
    ctx.response.setCookie("draft", "1");
    throw new Error("handler broke");
  });
  app.get("/stream", async (ctx) => {
    ctx.response.header("X-Draft", "lost");
    ctx.response.stream(200, "text/plain");
    throw new HttpError(409, "changed my mind");
  });
  const answers = [];
  for (const path of ["/fail", "/deny", "/stream", "/missing"]) {
    const response = await app.request(path);
    answers.push([
      path,
      response.status,
      response.headers.get("x-before"),
      response.headers.get("x-async-before"),
      response.headers.get("x-draft"),
      response.headers.get("set-cookie"),
    ]);
  }
  expect(answers).toEqual([
    ["/fail", 500, "one", "two", null, null],
    ["/deny", 403, "one", "two", null, null],
    ["/stream", 409, "one", "two", null, null],
    ["/missing", 404, "one", "two", null, null],
  ]);
  await app.stop();
});
