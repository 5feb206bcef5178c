import { describe, expect, test } from "bun:test";
import { App, ManualIo, middleware } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { bearerAuth } from "../../examples/middleware/bearer-auth.ts";
import type { CleanupCounts } from "../../examples/middleware/cleanup-stats.ts";
import {
  createMiddlewareApp,
  type MiddlewareAppOptions,
  type MiddlewareLocals,
} from "../../examples/middleware/middleware-app.ts";
import { TokenTable, type User } from "../../examples/middleware/token-table.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { startExample } from "./support/start-example.ts";

type MiddlewareApp = ReturnType<typeof createMiddlewareApp>;

/** An App for one test, stopped by `await using`. */
function middlewareApp(options: MiddlewareAppOptions = {}): MiddlewareApp & AsyncDisposable {
  const app = createMiddlewareApp(options);
  return Object.assign(app, { [Symbol.asyncDispose]: () => app.stop() });
}

/** A ManualIo whose random bytes are 01 01 …, then 02 02 …: request ids are predictable. */
function predictableIo(): ManualIo {
  let next = 0;
  return new ManualIo({ randomBytes: (target) => target.fill(++next) });
}

const ada = { Authorization: "Bearer ada-example-token" };

/** The headers the middleware chain is responsible for. */
function chainHeaders(response: Response) {
  return {
    status: response.status,
    requestId: response.headers.get("x-request-id"),
    timing: response.headers.get("server-timing"),
    challenge: response.headers.get("www-authenticate"),
  };
}

interface CleanupStats extends CleanupCounts {
  readonly sleeping: number;
}

/** Polls `GET /stats/cleanups` as a client would, until `condition` holds (5 s at most). */
async function waitForStats(
  baseUrl: string,
  condition: (stats: CleanupStats) => boolean,
  what: string,
): Promise<CleanupStats> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const response = await fetch(`${baseUrl}stats/cleanups`, { headers: ada });
    const stats = (await response.json()) as CleanupStats;
    if (condition(stats)) return stats;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(stats)}`);
    }
    await Bun.sleep(5);
  }
}

describe("request id, timing and typed locals", () => {
  test("GET /me sees the typed user and request id; the headers carry the same id", async () => {
    await using app = middlewareApp({ io: predictableIo() });
    const first = await app.request("/me", { headers: ada });
    const second = await app.request("/me", { headers: ada });
    expect([chainHeaders(first), await first.json(), chainHeaders(second)]).toEqual([
      { status: 200, requestId: "0101010101010101", timing: "app;dur=0", challenge: null },
      { user: { id: "1", name: "Ada Lovelace" }, requestId: "0101010101010101" },
      { status: 200, requestId: "0202020202020202", timing: "app;dur=0", challenge: null },
    ]);
  });

  test("locals are typed in handlers; a local no middleware adds is a type error", async () => {
    await using app = middlewareApp({ io: predictableIo() });
    app.route("GET", "/typed", (ctx) => {
      const user: User = ctx.locals.user;
      const id: string = ctx.locals.requestId;
      const startedAt: number = ctx.locals.requestStartMs;
      // @ts-expect-error: no middleware adds a "session" local
      ctx.locals.session;
      ctx.response.json(200, { name: user.name, id, startedAt });
    });
    const bare = new App({ shared: {} });
    bare.route("GET", "/", (ctx) => {
      // @ts-expect-error: without bearerAuth there is no "user" local
      ctx.locals.user;
    });
    const response = await app.request("/typed", { headers: ada });
    expect(await response.json()).toEqual({
      name: "Ada Lovelace",
      id: "0101010101010101",
      startedAt: 0,
    });
    await bare.stop();
  });

  test("Server-Timing reports the request's duration on the Io monotonic clock", async () => {
    const io = predictableIo();
    await using app = middlewareApp({ io, slowMs: 250 });
    const pending = app.request("/slow", { headers: ada });
    await waitUntil(() => io.pendingTimers === 1 && app.shared.sleeping === 1, "/slow to sleep");
    io.advance(250);
    const response = await pending;
    expect([chainHeaders(response), await response.json(), app.shared.sleeping]).toEqual([
      { status: 200, requestId: "0101010101010101", timing: "app;dur=250", challenge: null },
      { sleptMs: 250 },
      0,
    ]);
  });
});

test("Server-Timing leaves a stream whose headers are sent whole: last chunk sent, cleanup success", async () => {
  await using app = middlewareApp({ io: predictableIo() });
  app.route("GET", "/streamed", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("first ");
    await writer.flush(); // the headers are out: serverTiming's after adds none
    await writer.writeAll("second");
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /streamed HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer ada-example-token\r\n\r\n",
  );
  const response = await client.response();
  await waitUntil(() => app.shared.cleanups.success === 1, "the stream's cleanup");
  expect({
    body: response.text,
    lastChunk: client.receivedText.endsWith("\r\n0\r\n\r\n"),
    requestId: response.header("x-request-id"),
    timing: response.header("server-timing"),
    cleanups: app.shared.cleanups,
  }).toEqual({
    body: "first second",
    lastChunk: true,
    requestId: "0101010101010101",
    timing: undefined,
    cleanups: { success: 1, error: 0, aborted: 0 },
  });
});

describe("bearer authentication", () => {
  test("missing, foreign or unknown credentials are a 401 with a Bearer challenge", async () => {
    await using app = middlewareApp({ io: predictableIo() });
    const cases: Array<[Record<string, string>, number, string, string]> = [
      [{}, 401, 'Bearer realm="corral"', "unauthorized"],
      [{ Authorization: "Basic YWRhOnNlY3JldA==" }, 401, 'Bearer realm="corral"', "unauthorized"],
      [{ Authorization: "Bearer" }, 401, 'Bearer realm="corral"', "unauthorized"],
      [
        { Authorization: "Bearer ada-example-token-" },
        401,
        'Bearer realm="corral", error="invalid_token"',
        "invalid_token",
      ],
      [
        { Authorization: "Bearer ada example" },
        400,
        'Bearer realm="corral", error="invalid_request"',
        "invalid_request",
      ],
    ];
    for (const [headers, status, challenge, error] of cases) {
      const response = await app.request("/me", { headers });
      const body = (await response.json()) as { error: string };
      expect([
        headers,
        response.status,
        response.headers.get("www-authenticate"),
        body.error,
      ]).toEqual([headers, status, challenge, error]);
    }
    // RFC 9110 §11.1: the scheme is case-insensitive.
    const lowerCase = await app.request("/me", {
      headers: { Authorization: "bearer  grace-example-token" },
    });
    expect(((await lowerCase.json()) as { user: User }).user.name).toBe("Grace Hopper");
    // Refused requests are answered, not failed: their cleanup sees "success".
    expect(app.shared.cleanups).toEqual({ success: 6, error: 0, aborted: 0 });
  });

  test("an invalid token table or realm is a programmer error", () => {
    const user = { id: "1", name: "x" };
    expect(() => createMiddlewareApp({ tokens: { "has space": user } })).toThrow(TypeError);
    expect(() => bearerAuth(new TokenTable({ fine: user }), 'say "hi"')).toThrow(TypeError);
  });
});

describe("middleware order", () => {
  test("before in registration order, after in reverse, the cleanup counter outermost", async () => {
    const trace: string[] = [];
    await using app = middlewareApp({ io: predictableIo() });
    app.use(
      middleware<{ traced: true }, MiddlewareLocals, typeof app.shared>({
        before(ctx) {
          // Locals are added in middleware order, so their keys show which ran first.
          trace.push(`before, locals ${Object.keys(ctx.locals).join(" ")}`);
          ctx.locals.traced = true;
        },
        after() {
          trace.push("after");
        },
        cleanup(ctx, outcome) {
          // Runs before the counter's cleanup: this request is not counted yet.
          trace.push(`cleanup ${outcome}, counted ${ctx.shared.cleanups.success}`);
        },
      }),
    );
    const allowed = await app.request("/me", { headers: ada });
    const refused = await app.request("/me");
    expect({
      trace,
      allowed: chainHeaders(allowed),
      // Authentication stopped the chain, yet the id and timing set around it are on the 401.
      refused: chainHeaders(refused),
      counted: app.shared.cleanups,
    }).toEqual({
      trace: [
        "before, locals requestId requestStartMs user",
        "after",
        "cleanup success, counted 0",
      ],
      allowed: { status: 200, requestId: "0101010101010101", timing: "app;dur=0", challenge: null },
      refused: {
        status: 401,
        requestId: "0202020202020202",
        timing: "app;dur=0",
        challenge: 'Bearer realm="corral"',
      },
      counted: { success: 2, error: 0, aborted: 0 },
    });
  });
});

describe("cleanup outcomes", () => {
  test("GET /boom is a bare 500 with the request id, counted as an error", async () => {
    await using app = middlewareApp({ io: predictableIo() });
    const response = await app.request("/boom", { headers: ada });
    const stats = await app.request("/stats/cleanups", { headers: ada });
    expect([chainHeaders(response), await response.text(), await stats.json()]).toEqual([
      // The handler's draft was discarded; the request id a `before` hook drafted stayed, and
      // the after hooks ran on the error's answer (the timing).
      { status: 500, requestId: "0101010101010101", timing: "app;dur=0", challenge: null },
      "Internal Server Error\n",
      { success: 0, error: 1, aborted: 0, sleeping: 0 },
    ]);
  });

  test("a client leaving GET /slow ends its sleep at once, counted as aborted", async () => {
    const io = predictableIo();
    await using app = middlewareApp({ io });
    const server = listenQuietly(app);
    const client = await RawClient.connect(server.port);
    client.send(`GET /slow HTTP/1.1\r\nHost: x\r\nAuthorization: ${ada.Authorization}\r\n\r\n`);
    await waitUntil(() => app.shared.sleeping === 1 && io.pendingTimers === 1, "/slow to sleep");
    client.destroy();
    // Nobody moved the manual clock: only the disconnect can have ended the sleep.
    const baseUrl = `http://127.0.0.1:${server.port}/`;
    const stats = await waitForStats(baseUrl, (counts) => counts.aborted === 1, "the cleanup");
    expect([stats, io.pendingTimers, server.stats().workersBusy]).toEqual([
      { success: 0, error: 0, aborted: 1, sleeping: 0 },
      0,
      0,
    ]);
  });
});

test("bun run example middleware: auth on the wire, errors and disconnects counted", async () => {
  await using example = await startExample("middleware");
  const base = example.baseUrl;

  using raw = await RawClient.connect(example.port);
  raw.send("GET /me HTTP/1.1\r\nHost: x\r\n\r\n");
  const refused = await raw.response();
  expect([refused.statusLine, refused.header("www-authenticate"), refused.text]).toEqual([
    "HTTP/1.1 401 Unauthorized",
    'Bearer realm="corral"',
    '{"error":"unauthorized","message":"send Authorization: Bearer <token>"}',
  ]);
  expect(refused.header("x-request-id")).toMatch(/^[0-9a-f]{16}$/);
  expect(refused.header("server-timing")).toMatch(/^app;dur=\d+(\.\d)?$/);

  const boom = await fetch(`${base}boom`, { headers: ada });
  expect([boom.status, await boom.text()]).toEqual([500, "Internal Server Error\n"]);
  const before = await waitForStats(base, (stats) => stats.error === 1, "the error cleanup");

  const leaving = await RawClient.connect(example.port);
  leaving.send(`GET /slow HTTP/1.1\r\nHost: x\r\nAuthorization: ${ada.Authorization}\r\n\r\n`);
  await waitForStats(base, (stats) => stats.sleeping === 1, "/slow to sleep");
  leaving.destroy();
  const after = await waitForStats(base, (stats) => stats.aborted === 1, "the aborted cleanup");
  expect([before.aborted, after.sleeping, after.error]).toEqual([0, 0, 1]);
});
