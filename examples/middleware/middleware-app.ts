import { App, Duration, type Io, systemIo } from "corral";
import { type AuthLocals, bearerAuth } from "./bearer-auth.ts";
import { type CleanupShared, cleanupStats, emptyCleanupCounts } from "./cleanup-stats.ts";
import { type RequestIdLocals, requestId } from "./request-id.ts";
import { type ServerTimingLocals, serverTiming } from "./server-timing.ts";
import { TokenTable, type User } from "./token-table.ts";

/**
 * The middleware example's shared state: cleanup counters and the `/slow` handlers waiting.
 *
 * @example
 * app.shared.cleanups.aborted; // requests whose client left
 */
export interface MiddlewareShared extends CleanupShared {
  sleeping: number;
}

/**
 * The locals every handler of the example sees, typed: what the middleware chain adds.
 *
 * @example
 * app.route("GET", "/who", (ctx) => ctx.response.text(200, ctx.locals.user.name));
 */
export type MiddlewareLocals = RequestIdLocals & ServerTimingLocals & AuthLocals;

/**
 * Options of `createMiddlewareApp`.
 *
 * @example
 * createMiddlewareApp({ io: new ManualIo(), slowMs: 250 });
 */
export interface MiddlewareAppOptions {
  /** Clock, timers and randomness for the ids, the timing and `/slow`; `systemIo` by default. */
  readonly io?: Io;
  /** Bearer tokens and their users; `exampleTokens` by default. */
  readonly tokens?: Readonly<Record<string, User>>;
  /** How long `GET /slow` sleeps before answering; 10 s by default (under the 30 s deadline). */
  readonly slowMs?: number;
}

/**
 * The tokens the example runs with. Demonstration values only: real tokens come from an
 * identity provider or a session store, never from source code.
 *
 * @example
 * fetch(url, { headers: { Authorization: "Bearer ada-example-token" } });
 */
export const exampleTokens: Readonly<Record<string, User>> = Object.freeze({
  "ada-example-token": { id: "1", name: "Ada Lovelace" },
  "grace-example-token": { id: "2", name: "Grace Hopper" },
});

/**
 * Four middleware in this order: cleanup counters (outermost, so they see every request),
 * request id, timing, then bearer authentication, which guards every route: corral's middleware
 * is App-wide. Routes: `GET /me`, `GET /boom` (throws), `GET /slow` (sleeps until done or the
 * client leaves) and `GET /stats/cleanups`.
 *
 * @example
 * const app = createMiddlewareApp({ io: new ManualIo() });
 * const me = await app.request("/me", { headers: { Authorization: "Bearer ada-example-token" } });
 */
export function createMiddlewareApp(
  options: MiddlewareAppOptions = {},
): App<MiddlewareShared, MiddlewareLocals> {
  const io = options.io ?? systemIo;
  const slowMs = options.slowMs ?? 10_000;
  const tokens = new TokenTable(options.tokens ?? exampleTokens);
  const app = new App<MiddlewareShared>({
    shared: { cleanups: emptyCleanupCounts(), sleeping: 0 },
    io,
  })
    .use(cleanupStats())
    .use(requestId(io))
    .use(serverTiming(io))
    .use(bearerAuth(tokens));

  app.route("GET", "/me", (ctx) => {
    ctx.response.json(200, { user: ctx.locals.user, requestId: ctx.locals.requestId });
  });

  app.route("GET", "/boom", () => {
    throw new Error("boom: a handler failed");
  });

  app.route("GET", "/slow", async (ctx) => {
    ctx.shared.sleeping++;
    try {
      // Rejects with ClientGoneError as soon as the client leaves; cleanup sees "aborted".
      await ctx.sleep(Duration.fromMilliseconds(slowMs));
    } finally {
      ctx.shared.sleeping--;
    }
    ctx.response.json(200, { sleptMs: slowMs });
  });

  app.route("GET", "/stats/cleanups", (ctx) => {
    // This request's own cleanup runs after its response: it is not in these counts yet.
    ctx.response.json(200, { ...ctx.shared.cleanups, sleeping: ctx.shared.sleeping });
  });

  return app;
}
