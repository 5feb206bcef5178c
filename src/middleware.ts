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
