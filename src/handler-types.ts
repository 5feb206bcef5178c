import type { App, RouteHandler } from "./app.ts";
import type { Context } from "./context.ts";
import type { PathParams } from "./router/path-params.ts";

// biome-ignore lint/suspicious/noExplicitAny: matches an App of any shared state and locals.
type AnyApp = App<any, any>;

/** The shared state type of an App type. */
export type SharedOf<A extends AnyApp> = A extends App<infer Shared, object> ? Shared : never;

/** The locals type of an App type (what its middleware add). */
export type LocalsOf<A extends AnyApp> = A extends App<unknown, infer Locals> ? Locals : never;

/**
 * The handler of `Path` on an App of type `A`: for handlers written apart from their route.
 *
 * @example
 * const app = new App({ shared: { store } }).use(requestId());
 * const getTodo: HandlerFor<typeof app, "/api/todos/:id"> = (ctx) => {
 *   ctx.response.json(200, ctx.shared.store.get(ctx.params.id));
 * };
 * app.get("/api/todos/:id", getTodo);
 */
export type HandlerFor<A extends AnyApp, Path extends string> = RouteHandler<
  SharedOf<A>,
  PathParams<Path>,
  LocalsOf<A>
>;

/**
 * The context the handler of `Path` on an App of type `A` gets.
 *
 * @example
 * function todoId(ctx: ContextFor<typeof app, "/api/todos/:id">): number {
 *   return Number(ctx.params.id);
 * }
 */
export type ContextFor<A extends AnyApp, Path extends string> = Context<
  SharedOf<A>,
  PathParams<Path>,
  LocalsOf<A>
>;
