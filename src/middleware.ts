import type { Context } from "./context.ts";

/** The locals of a request no middleware added anything to. */
export type NoLocals = Record<never, never>;

/** How a request ended, as `cleanup` hooks learn it. */
export type RequestOutcome = "success" | "error" | "aborted";

/** Returned by `before` to answer from the middleware and skip the rest of the chain. */
export const stopChain = "stop";

/**
 * Ordered hooks around every request. `before` runs in registration order and may answer and
 * stop the chain (return `"stop"`); `after` runs in reverse order when the handler succeeded;
 * `cleanup` always runs, once, in reverse order: on success, error, disconnect and timeout.
 * `Adds` are the locals this middleware sets; `Needs` the locals it expects from earlier ones.
 */
export interface Middleware<
  Adds extends object = NoLocals,
  Needs extends object = NoLocals,
  Shared = unknown,
> {
  readonly before?: (
    ctx: Context<Shared, Readonly<Record<string, string>>, Needs & Partial<Adds>>,
  ) => undefined | "stop" | Promise<undefined | "stop"> | void | Promise<void>;
  readonly after?: (
    ctx: Context<Shared, Readonly<Record<string, string>>, Needs & Adds>,
  ) => void | Promise<void>;
  readonly cleanup?: (
    ctx: Context<Shared, Readonly<Record<string, string>>, Needs & Partial<Adds>>,
    outcome: RequestOutcome,
  ) => void;
  /** Type-level only: the locals this middleware adds. */
  readonly addsLocals?: Adds;
}

/**
 * Declares a middleware and the locals it adds, so `app.use()` can carry their types.
 *
 * @example
 * const auth = middleware<{ user: string }>({
 *   before(ctx) {
 *     const user = ctx.request.header("x-user");
 *     if (!user) throw new HttpError(401, "who are you?");
 *     ctx.locals.user = user;
 *   },
 * });
 * const app = new App({ shared: {} }).use(auth);
 * app.route("GET", "/me", (ctx) => ctx.response.text(200, ctx.locals.user));
 */
export function middleware<
  Adds extends object = NoLocals,
  Needs extends object = NoLocals,
  Shared = unknown,
>(hooks: Middleware<Adds, Needs, Shared>): Middleware<Adds, Needs, Shared> {
  return hooks;
}

const hookNames = ["before", "after", "cleanup"] as const;

/**
 * Throws a `TypeError` unless `value` is a middleware: an object with at least one of the hooks
 * `before`, `after` and `cleanup`, each a function. A Hono-style function (`async (c, next) =>
 * …`) or an object whose hook is misspelt (`{ befor }`) would otherwise be taken as a middleware
 * without hooks and never run: an authentication check missing without a word. Other members
 * are allowed (a middleware may be an instance with state).
 */
export function checkMiddleware(value: unknown): void {
  if (typeof value === "function") {
    throw new TypeError(
      "corral: app.use() takes a middleware object ({ before, after, cleanup }), got a function; " +
        "a Hono-style (ctx, next) function becomes a before hook (what it does before next()) " +
        "and an after hook (what it does after)",
    );
  }
  if (typeof value !== "object" || value === null) {
    throw new TypeError(
      `corral: app.use() takes a middleware object ({ before, after, cleanup }), got ${String(value)}`,
    );
  }
  const hooks = value as Record<string, unknown>;
  let found = 0;
  for (const hook of hookNames) {
    const member = hooks[hook];
    if (member === undefined) continue;
    if (typeof member !== "function") {
      throw new TypeError(`corral: the middleware's ${hook} hook must be a function`);
    }
    found++;
  }
  if (found === 0) {
    const keys = Object.keys(hooks);
    throw new TypeError(
      "corral: a middleware needs a before, after or cleanup hook, and this one has none" +
        (keys.length > 0 ? ` (its members: ${keys.join(", ")})` : ""),
    );
  }
}
