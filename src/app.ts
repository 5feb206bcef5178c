import {
  createEngine,
  type Engine,
  type Exchange,
  type Limits,
  resolveLimits,
} from "corral/engine";
import { type AnyContext, Context } from "./context.ts";
import { type ContinuationSpec, runContinuation } from "./continuation.ts";
import { type ErrorHandling, internalError, mapError } from "./error-mapping.ts";
import type { ErrorFormat } from "./errors/error-format.ts";
import { answerRouteMiss, type MissHandlers } from "./errors/route-miss.ts";
import { type AppLog, HandlerFailures } from "./handler-failures.ts";
import { assertNotHotReloading } from "./hot-reload.ts";
import { type InProcessRequestInit, requestInProcess } from "./in-process.ts";
import { type Io, systemIo } from "./io.ts";
import type { Middleware, NoLocals, RequestOutcome } from "./middleware.ts";
import type { RedisConnection } from "./redis/redis-connection.ts";
import { type AppStats, RedisCounters } from "./redis/redis-stats.ts";
import type { RedisSubscriber } from "./redis/redis-subscriber.ts";
import { RequestView, type RequestViewLimits } from "./request-view.ts";
import { ResponseDraft } from "./response-draft.ts";
import { assertHttpMethod, type HttpMethod } from "./router/http-methods.ts";
import type { PathParams } from "./router/path-params.ts";
import { endpointMethods, type RouteResult, Router } from "./router/router.ts";
import {
  type InProcessWebSocket,
  type InProcessWebSocketOptions,
  openInProcessWebSocket,
} from "./testing/in-process-websocket.ts";
import { requestScopeEnabled, runInRequestScope } from "./waiting/request-scope.ts";
import { Rooms } from "./websocket/rooms.ts";
import { WebSocketEndpoint, type WebSocketRoute } from "./websocket/websocket-route.ts";

/** The App's limits: the engine's and those of the request views. */
export interface AppLimits extends Limits, RequestViewLimits {}

/** Defaults of the App's own limits (the engine's are `defaultLimits`). */
export const defaultRequestViewLimits: RequestViewLimits = Object.freeze({
  maxParameters: 1000,
  maxMultipartParts: 64,
  maxMultipartPartHeaderBytes: 1024,
});

/** A route handler. */
export type RouteHandler<Shared, Params, Locals> = (
  ctx: Context<Shared, Params, Locals>,
) => void | Promise<void>;

/** An endpoint instance: methods named for HTTP methods in lower case. */
export type Endpoint<Shared, Params, Locals> = {
  readonly [Method in (typeof endpointMethods)[number]]?: RouteHandler<Shared, Params, Locals>;
};

/** Options of `new App()`. */
export interface AppOptions<Shared> {
  /** The shared state handlers see as `ctx.shared`; one object for the App's life. */
  readonly shared: Shared;
  /** Overrides of the engine's and the App's limits. */
  readonly limits?: Partial<AppLimits>;
  /** Clocks, timers and randomness; `systemIo` by default. */
  readonly io?: Io;
  /**
   * Where handler errors are reported, once each: those answered with a 5xx (method, path,
   * status, the error with its stack) and those after a stream's headers were sent. `console`
   * by default; `null` for silence. The client never sees any of it.
   */
  readonly log?: AppLog | null;
  /**
   * How the App's own error answers are written (mapped errors, 404, 405, 501): `"text"` (the
   * default) or `"problem"`, RFC 9457 `application/problem+json`.
   */
  readonly errorFormat?: ErrorFormat;
}

/**
 * Sees every error a handler or middleware threw, with the App's answer to it already drafted
 * (see `onError`). Locals are partial: the middleware that sets one may not have run.
 */
export type ErrorMapper<Shared, Locals extends object = NoLocals> = (
  error: unknown,
  ctx: Context<Shared, Readonly<Record<string, string>>, Partial<Locals>>,
) => void | Promise<void>;

/** Options of `App.listen`. */
export interface AppListenOptions {
  /** Address to bind; 127.0.0.1 by default. */
  readonly hostname?: string;
  /** Port to bind; 0 picks a free one. */
  readonly port: number;
  /** Shares the port with other processes (SO_REUSEPORT); see `serve` for a supervisor. */
  readonly reusePort?: boolean;
  /** Where the budget line goes; `console.log` by default, `null` for silence. */
  readonly log?: ((line: string) => void) | null;
}

/** A running App. */
export interface AppServer {
  readonly hostname: string;
  readonly port: number;
  /** The memory budget line. */
  readonly budget: string;
  /** See `App.stats()`. */
  stats(): AppStats;
}

// biome-ignore lint/suspicious/noExplicitAny: handlers of every route share one table.
type AnyHandler = RouteHandler<any, any, any>;

/** `app.get(path, handler, options?)` and the other shortcuts of `route`. */
export type RouteShortcut<Shared, Locals extends object> = <Path extends string>(
  path: Path,
  handler: RouteHandler<Shared, PathParams<Path>, Locals>,
  options?: RouteOptions,
) => App<Shared, Locals>;

/** Options of `app.route()`. */
export interface RouteOptions {
  /**
   * `"buffer"` (the default): the body is read whole before the handler runs, up to
   * `maxBodyBytes`, as `ctx.request.body`. `"stream"`: the handler runs after the head and reads
   * the body as it arrives with `ctx.request.bodyStream()`, up to `maxStreamedBodyBytes`.
   */
  readonly body?: "buffer" | "stream";
}

interface Route {
  readonly handler: AnyHandler;
  /** The route's dispatch key: its registration order, after the key of unrouted answers. */
  readonly key: number;
  /** Whether the route reads its request body as a stream. */
  readonly streamsBody?: boolean;
  readonly instance: object | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: continuations of every state type share one table.
  readonly continuation?: ContinuationSpec<any, any, any, any>;
  readonly webSocket?: WebSocketEndpoint;
}

/** The dispatch key of every answer no route gives (404, 405, 501, `OPTIONS *`). */
const unroutedKey = 0;

/** Methods the App knows even when no route uses them: anything else is a 501. */
/** What `app.all()` registers: every method but HEAD, which GET's handler answers. */
const allMethods: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const knownMethods = new Set<string>(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * A typed web application: one router, ordered middleware with typed locals, error mapping,
 * and the bounded engine underneath.
 *
 * @example
 * const app = new App({ shared: { greeting: "Hello" } });
 * app.route("GET", "/hello/:name", (ctx) => {
 *   ctx.response.text(200, `${ctx.shared.greeting}, ${ctx.params.name}!`);
 * });
 * app.listen({ port: 3000 });
 */
export class App<Shared, Locals extends object = NoLocals> {
  /** The shared state (stable identity). */
  readonly shared: Shared;
  /** The App's Io. */
  readonly io: Io;
  /** The limits in force. */
  readonly limits: AppLimits;
  /** The WebSocket rooms of this App (see `app.ws`); `rooms.bridge()` spreads them over processes. */
  readonly rooms: Rooms = new Rooms();
  readonly #router = new Router<Route>();
  readonly #middleware: ChainLink[] = [];
  /** Whether any middleware has an `after` hook: without one, that walk is skipped. */
  #hasAfter = false;
  /** Whether any middleware has a `cleanup` hook: without one, that walk is skipped. */
  #hasCleanup = false;
  #errorHandling: ErrorHandling;
  readonly #miss: MissHandlers = { notFound: undefined, methodNotAllowed: undefined };
  readonly #failures: HandlerFailures;
  #engine: Engine | undefined;
  /** Whether some route streams its body: without one the engine is not asked per request. */
  #streamsBodies = false;
  #redis: RedisCounters | undefined;
  /** Dispatch keys given to routes so far (0 is the unrouted answers'). */
  #routeKeys = 0;
  #routedExchange: Exchange | undefined;
  #routed: RouteResult<Route> | undefined;
  #listening = false;
  #stopped = false;
  /** Streams the engine counted as failed handlers that a client's leaving ended. */
  #streamsEndedByClient = 0;

  constructor(options: AppOptions<Shared>) {
    this.shared = options.shared;
    this.io = options.io ?? systemIo;
    this.#failures = new HandlerFailures(options.log === undefined ? console : options.log);
    const { maxParameters, maxMultipartParts, maxMultipartPartHeaderBytes, ...engineLimits } =
      options.limits ?? {};
    const viewLimits = {
      maxParameters: maxParameters ?? defaultRequestViewLimits.maxParameters,
      maxMultipartParts: maxMultipartParts ?? defaultRequestViewLimits.maxMultipartParts,
      maxMultipartPartHeaderBytes:
        maxMultipartPartHeaderBytes ?? defaultRequestViewLimits.maxMultipartPartHeaderBytes,
    };
    for (const [name, value] of Object.entries(viewLimits)) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`corral: limit ${name} must be a whole number >= 1, got ${value}`);
      }
    }
    this.limits = Object.freeze({ ...resolveLimits(engineLimits), ...viewLimits });
    const format = options.errorFormat ?? "text";
    if (format !== "text" && format !== "problem") {
      throw new TypeError(`corral: errorFormat must be "text" or "problem", got ${format}`);
    }
    this.#errorHandling = { format, onError: undefined };
  }

  /**
   * `app.get(path, handler, options?)` is `route("GET", path, handler, options)`; likewise
   * `post`, `put`, `patch`, `delete`, `head` (without one, GET's handler answers HEAD) and
   * `options`.
   *
   * @example
   * app.get("/todos/:id", (ctx) => ctx.response.json(200, { id: ctx.params.id }));
   */
  readonly get = this.#shortcut(["GET"]);
  /** `route("POST", ...)`; see `get`. */
  readonly post = this.#shortcut(["POST"]);
  /** `route("PUT", ...)`; see `get`. */
  readonly put = this.#shortcut(["PUT"]);
  /** `route("PATCH", ...)`; see `get`. */
  readonly patch = this.#shortcut(["PATCH"]);
  /** `route("DELETE", ...)`; see `get`. */
  readonly delete = this.#shortcut(["DELETE"]);
  /** `route("HEAD", ...)`; see `get`. */
  readonly head = this.#shortcut(["HEAD"]);
  /** `route("OPTIONS", ...)`; see `get`. */
  readonly options = this.#shortcut(["OPTIONS"]);
  /** The handler for GET (and so HEAD), POST, PUT, PATCH, DELETE and OPTIONS on `path`. */
  readonly all = this.#shortcut(allMethods);

  #shortcut(methods: readonly HttpMethod[]): RouteShortcut<Shared, Locals> {
    return (path, handler, options) => {
      for (const method of methods) this.route(method, path, handler, options);
      return this;
    };
  }

  /**
   * Registers `handler` for `method` on `path` (`:name` captures, a trailing `*rest`);
   * `{ body: "stream" }` makes the handler read the request body as it arrives.
   */
  route<Path extends string>(
    method: HttpMethod,
    path: Path,
    handler: RouteHandler<Shared, PathParams<Path>, Locals>,
    options: RouteOptions = {},
  ): this {
    this.#assertNotStarted();
    assertHttpMethod(method);
    if (typeof handler !== "function")
      throw new TypeError("corral: a route handler must be a function");
    const body = options.body ?? "buffer";
    if (body !== "buffer" && body !== "stream") {
      throw new TypeError(`corral: route option body must be "buffer" or "stream", got ${body}`);
    }
    const streamsBody = body === "stream";
    if (streamsBody) this.#streamsBodies = true;
    this.#router.add(method, path, {
      handler: handler as AnyHandler,
      key: ++this.#routeKeys,
      instance: undefined,
      streamsBody,
    });
    return this;
  }

  /**
   * Registers a continuation: a long-lived stream whose typed `state` is made once and whose
   * `step` runs when woken, holding a worker only while it writes. Middleware runs once around
   * the whole stream.
   */
  continuation<Path extends string, State>(
    method: HttpMethod,
    path: Path,
    spec: ContinuationSpec<Shared, PathParams<Path>, Locals, State>,
  ): this {
    this.#assertNotStarted();
    assertHttpMethod(method);
    if (typeof spec.step !== "function" || typeof spec.state !== "function") {
      throw new TypeError("corral: a continuation needs state() and step() functions");
    }
    const handler = (() => {
      throw new TypeError("corral: continuations run through the App");
    }) as AnyHandler;
    this.#router.add(method, path, {
      handler,
      key: ++this.#routeKeys,
      instance: undefined,
      continuation: spec,
    });
    return this;
  }

  /**
   * Registers a WebSocket route: a `GET` on `path` whose valid handshake is upgraded after the
   * middleware ran (see `WebSocketRoute`); `Data` is what its `upgrade` returns for each socket.
   *
   * @example
   * app.ws("/rooms/:name", {
   *   open: (socket) => socket.subscribe(socket.params.name),
   *   message: (socket, message) => void socket.publish(socket.params.name, message),
   * });
   */
  ws<Path extends string, Data = undefined>(
    path: Path,
    route: WebSocketRoute<Shared, PathParams<Path>, Locals, Data>,
  ): this {
    this.#assertNotStarted();
    const webSocket = new WebSocketEndpoint(
      route,
      this.rooms,
      this.limits.maxWebSocketMessageBytes,
    );
    const handler = (() => {
      throw new TypeError("corral: WebSocket routes run through the App");
    }) as AnyHandler;
    this.#router.add("GET", path, {
      handler,
      key: ++this.#routeKeys,
      instance: undefined,
      webSocket,
    });
    return this;
  }

  /** Registers an instance whose `get`, `post`, … methods handle those methods on `path`. */
  endpoint<Path extends string>(
    path: Path,
    instance: Endpoint<Shared, PathParams<Path>, Locals>,
  ): this {
    this.#assertNotStarted();
    let count = 0;
    for (const name of endpointMethods) {
      const handler = (instance as Record<string, unknown>)[name];
      if (typeof handler !== "function") continue;
      this.#router.add(name.toUpperCase(), path, {
        handler: handler as AnyHandler,
        key: ++this.#routeKeys,
        instance,
      });
      count++;
    }
    if (count === 0) {
      throw new TypeError(
        `corral: the endpoint for ${path} has no get/post/put/patch/delete/head/options method`,
      );
    }
    return this;
  }

  /** Adds a middleware; the App's type then carries the locals it adds. */
  use<Adds extends object>(
    middleware: Middleware<Adds, Locals, Shared>,
  ): App<Shared, Locals & Adds> {
    this.#assertNotStarted();
    // Every link has the same three fields, so reading an absent hook is a plain load, and the
    // hooks are read once here: changing the object later does not change the chain.
    const { before, after, cleanup } = middleware as AnyMiddleware;
    this.#middleware.push({ before, after, cleanup });
    if (after !== undefined) this.#hasAfter = true;
    if (cleanup !== undefined) this.#hasCleanup = true;
    return this as unknown as App<Shared, Locals & Adds>;
  }

  /**
   * Sets the hook that sees every error a handler or middleware throws, once the App drafted its
   * answer (the error's own status, or a bare 500): it may log, replace the answer, or rethrow
   * the error it got to keep the answer; anything else it throws is a bare 500. The `after` hooks
   * then run on the answer, as on every answer.
   *
   * @example
   * app.onError((error, ctx) => {
   *   if (error instanceof NotFoundInStore) ctx.response.json(404, { error: "not found" });
   * });
   */
  onError(mapper: ErrorMapper<Shared, Locals>): this {
    this.#errorHandling = {
      format: this.#errorHandling.format,
      onError: mapper as ErrorHandling["onError"],
    };
    return this;
  }

  /**
   * Answers requests no route matches (instead of the App's 404); the `after` hooks run on its
   * answer as on any other.
   *
   * @example
   * app.notFound((ctx) => ctx.response.json(404, { error: `no route for ${ctx.request.path}` }));
   */
  notFound(handler: RouteHandler<Shared, Readonly<Record<string, string>>, Locals>): this {
    this.#assertNotStarted();
    this.#miss.notFound = handler as AnyHandler;
    return this;
  }

  /**
   * Answers requests whose path has routes but not for their method (instead of the App's 405);
   * the `Allow` header is already drafted (`ctx.response.header("Allow")` reads it).
   *
   * @example
   * app.methodNotAllowed((ctx) => ctx.response.json(405, { error: "method not allowed" }));
   */
  methodNotAllowed(handler: RouteHandler<Shared, Readonly<Record<string, string>>, Locals>): this {
    this.#assertNotStarted();
    this.#miss.methodNotAllowed = handler as AnyHandler;
    return this;
  }

  /**
   * Starts serving on `hostname` (127.0.0.1 by default) and `port`; prints the budget line.
   * Under `bun --hot` it is a `TypeError` that says to use `bun --watch` (see `docs/guide.md`).
   */
  listen(options: AppListenOptions): AppServer {
    if (this.#listening) throw new TypeError("corral: this App is already listening");
    assertNotHotReloading();
    const engine = this.#ensureEngine();
    const { log = console.log, ...bind } = options;
    const server = engine.listen(bind);
    this.#listening = true;
    log?.(engine.budget);
    return {
      hostname: server.hostname,
      port: server.port,
      budget: engine.budget,
      stats: () => this.stats(),
    };
  }

  /** Stops serving: see the engine's `stop`. */
  async stop(options?: { readonly graceMs?: number }): Promise<void> {
    this.#stopped = true;
    await this.#engine?.stop(options);
  }

  /**
   * Exact engine counters. `handlerFailures` counts every handler (and middleware) error answered
   * with a 5xx, every stream aborted by one, and every one that came after the headers were
   * sent: with no other server errors, it equals the 5xx answers plus the aborted streams. A
   * client leaving (an SSE client closing its connection, say) or a deadline is an ordinary
   * `"aborted"` outcome: neither counted here nor logged. `redis` is there once `includeRedisStats()` was called.
   *
   * @example
   * const { requests, redis } = app.stats();
   */
  stats(): AppStats {
    const stats = this.#ensureEngine().stats();
    const handlerFailures =
      stats.handlerFailures - this.#streamsEndedByClient + this.#failures.count;
    if (this.#redis === undefined) return { ...stats, handlerFailures };
    return { ...stats, handlerFailures, redis: this.#redis.stats() };
  }

  /**
   * Counts a Redis connection or subscriber the App's stores use in `stats().redis` (reconnects,
   * pending and refused commands, timeouts), summed over all those included; including the same
   * one twice counts it once. Anything else is a TypeError.
   *
   * @example
   * const redis = await RedisConnection.open({ url });
   * app.includeRedisStats(redis);
   * app.stats().redis?.reconnects; // 0
   */
  includeRedisStats(source: RedisConnection | RedisSubscriber): void {
    this.#redis ??= new RedisCounters();
    this.#redis.include(source);
  }

  /**
   * Runs a request through the whole pipeline (engine parsing and limits, middleware, router,
   * handler, error mapping) in memory, without a socket, and returns a standard `Response` as
   * `fetch` would over the wire: it resolves once the head is sent, its body yields each flushed
   * chunk as it is flushed and errors when a stream is aborted, and `init.signal` aborting is a
   * client disconnect. After `stop()` it rejects.
   *
   * @example
   * const response = await app.request("/hello?name=x");
   * expect(await response.text()).toBe("x");
   */
  request(input: string | URL | Request, init?: InProcessRequestInit): Promise<Response> {
    if (this.#stopped) {
      return Promise.reject(
        new Error("corral: app.request() after app.stop(): the App is stopped"),
      );
    }
    return requestInProcess(this.#ensureEngine(), input, init);
  }

  /**
   * Opens a WebSocket to this App in memory, through the engine, middleware and the route's
   * upgrade as a socket would; rejects with the status when the upgrade is refused.
   *
   * @example
   * const socket = await app.connectWebSocket("/echo");
   * socket.send("hi");
   * expect(await socket.next()).toBe("hi");
   */
  connectWebSocket(path: string, options?: InProcessWebSocketOptions): Promise<InProcessWebSocket> {
    if (this.#stopped) return Promise.reject(new Error("corral: the App is stopped"));
    return openInProcessWebSocket(this.#ensureEngine(), path, options);
  }

  #assertNotStarted(): void {
    if (this.#listening) {
      throw new TypeError("corral: routes and middleware must be added before listen()");
    }
  }

  #ensureEngine(): Engine {
    const handle = (exchange: Exchange) => this.#handle(exchange);
    this.#engine ??= createEngine({
      limits: this.#engineLimits(),
      handler: (exchange) =>
        requestScopeEnabled() ? runInRequestScope(exchange, handle) : this.#handle(exchange),
      streamBodies: this.#streamsBodies ? (exchange) => this.#streamsBody(exchange) : undefined,
      dispatchKey: (exchange) => this.#dispatchKey(exchange),
      // The App answers a body over its limit itself, so the 413 carries what middleware set.
      dispatchOversizedBodies: true,
      log: null,
    });
    return this.#engine;
  }

  /**
   * The request's route, found once: the dispatch key asks first, the pipeline reuses it (a
   * request that waited in the queue is looked up again, as later requests replaced it).
   */
  #route(exchange: Exchange): RouteResult<Route> {
    if (exchange === this.#routedExchange) return this.#routed!;
    const found = this.#router.find(exchange.method, exchange.path);
    this.#routedExchange = exchange;
    this.#routed = found;
    return found;
  }

  /**
   * Fair dispatch by route: requests of one route (method and pattern) share a key, and every
   * unrouted answer (404, 405, 501) shares one, so no route can make the others queue.
   */
  #dispatchKey(exchange: Exchange): number {
    let found: RouteResult<Route>;
    try {
      found = this.#route(exchange);
    } catch {
      // A capture that does not decode: the pipeline meets the same error and maps it (400).
      return unroutedKey;
    }
    return found.kind === "found" ? found.handler.key : unroutedKey;
  }

  /** Whether the route of this request streams its body (asked after the head). */
  #streamsBody(exchange: Exchange): boolean {
    const found = this.#route(exchange);
    return found.kind === "found" && found.handler.streamsBody === true;
  }

  #engineLimits(): Limits {
    const {
      maxParameters: _parameters,
      maxMultipartParts: _parts,
      maxMultipartPartHeaderBytes: _headers,
      ...limits
    } = this.limits;
    return limits;
  }

  /**
   * One request through the pipeline. The synchronous path (hooks and handler returning plainly)
   * runs inside this one function: every call layer on it measurably slowed the pipelined
   * benchmark. A hook or handler that returns a promise branches out to #resume and #settle.
   */
  #handle(exchange: Exchange): void | Promise<void> {
    const request = new RequestView(exchange, this.limits);
    const response = new ResponseDraft(exchange);
    const ctx = new Context<Shared, Readonly<Record<string, string>>, object>(
      exchange,
      this.io,
      this.shared,
      request,
      response,
      noParams,
    );
    const chain = this.#middleware;
    let result: void | Promise<void>;
    try {
      for (let index = 0; ; index++) {
        if (index === chain.length) {
          ctx.middlewareHeaderLength = index === 0 ? 0 : exchange.draftedHeaderLength;
          const found = this.#route(exchange);
          if (
            found.kind === "found" &&
            found.handler.continuation === undefined &&
            found.handler.webSocket === undefined &&
            exchange.bodyRefused === null
          ) {
            ctx.params = found.params;
            const route = found.handler;
            result = route.handler.call(route.instance, ctx);
          } else {
            result = this.#dispatch(ctx, exchange, found);
          }
          result =
            result instanceof Promise
              ? this.#afterSettled(result, ctx, index - 1)
              : this.#after(ctx, index - 1);
          break;
        }
        const before = chain[index]!.before;
        ctx.enteredMiddleware = index + 1;
        if (before === undefined) continue;
        const early = before(ctx);
        if (early instanceof Promise) {
          result = this.#resume(early, ctx, exchange, index + 1);
          break;
        }
        if (early === "stop") {
          result = this.#after(ctx, index);
          break;
        }
      }
    } catch (error) {
      return this.#failed(ctx, exchange, error);
    }
    if (result instanceof Promise) return this.#settle(result, ctx, exchange);
    this.#finish(ctx, exchange, this.#finalize(response, exchange));
  }

  // The promise callbacks live in these small methods, not in #handle, #run and #after: a closure
  // over a function's parameters can make JavaScriptCore allocate a scope object on every call of
  // that function, and inside #handle it measurably slowed every request, async or not.

  /** Finishes the request when an asynchronous pipeline settles. */
  #settle(pending: Promise<void>, ctx: AnyContext, exchange: Exchange): Promise<void> {
    return pending.then(
      () => this.#succeeded(ctx, exchange),
      (error: unknown) => this.#failed(ctx, exchange, error),
    );
  }

  // A pipeline can go on while an off-worker wait still has the worker given back (one of
  // several waits given to `Promise.all` rejected first): it takes the worker back before the
  // response is finalised or an error mapped.

  #succeeded(ctx: AnyContext, exchange: Exchange): void | Promise<void> {
    if (exchange.live && !exchange.hasWorker) {
      return exchange.acquireWorker().then(
        () => this.#succeeded(ctx, exchange),
        (error: unknown) => this.#failed(ctx, exchange, error),
      );
    }
    this.#finish(ctx, exchange, this.#finalize(ctx.response, exchange));
  }

  #failedWithoutWorker(ctx: AnyContext, exchange: Exchange, error: unknown): Promise<void> {
    const retry = () => this.#failed(ctx, exchange, error);
    return exchange.acquireWorker().then(retry, retry);
  }

  /** Goes on with the chain from `next` (or unwinds on "stop") when a `before` hook settles. */
  #resume(
    pending: Promise<unknown>,
    ctx: AnyContext,
    exchange: Exchange,
    next: number,
  ): Promise<void> {
    return pending.then((value) =>
      value === "stop" ? this.#after(ctx, next - 1) : this.#run(ctx, exchange, next),
    );
  }

  /** Runs the `after` hooks from `from` down when `pending` settles. */
  #afterSettled(pending: Promise<void>, ctx: AnyContext, from: number): Promise<void> {
    return pending.then(() => this.#after(ctx, from));
  }

  /** Runs the cleanups, then ends the request views. */
  #finish(ctx: AnyContext, exchange: Exchange, outcome: RequestOutcome): void {
    this.#cleanup(ctx, outcome, exchange);
    ctx.request.end();
  }

  /**
   * The chain from `index` on, the handler, then the `after` hooks: what is left once a `before`
   * hook settled (#handle runs the synchronous start of the same walk itself).
   */
  #run(ctx: AnyContext, exchange: Exchange, index: number): void | Promise<void> {
    const chain = this.#middleware;
    for (; index < chain.length; index++) {
      const before = chain[index]!.before;
      ctx.enteredMiddleware = index + 1;
      if (before === undefined) continue;
      const early = before(ctx);
      if (early instanceof Promise) return this.#resume(early, ctx, exchange, index + 1);
      if (early === "stop") return this.#after(ctx, index);
    }
    ctx.middlewareHeaderLength = exchange.draftedHeaderLength;
    const result = this.#dispatch(ctx, exchange, this.#route(exchange));
    if (result instanceof Promise) return this.#afterSettled(result, ctx, chain.length - 1);
    return this.#after(ctx, chain.length - 1);
  }

  #after(ctx: AnyContext, from: number): void | Promise<void> {
    if (!this.#hasAfter) return;
    ctx.handlerSucceeded = true;
    const chain = this.#middleware;
    for (let index = from; index >= 0; index--) {
      const after = chain[index]!.after;
      if (after === undefined) continue;
      const result = after(ctx);
      if (result instanceof Promise) return this.#afterSettled(result, ctx, index - 1);
    }
  }

  /** Runs a continuation (its closure kept out of #dispatch, as for #settle). */
  // biome-ignore lint/suspicious/noExplicitAny: continuations of every state type share one table.
  #continue(ctx: AnyContext, exchange: Exchange, spec: ContinuationSpec<any, any, any, any>) {
    return runContinuation(ctx, exchange, this.io, spec, () =>
      ctx.request.releaseBody("in state()"),
    );
  }

  /** Runs the found route's handler or continuation, or answers 404, 405, 501 or `OPTIONS *`. */
  #dispatch(ctx: AnyContext, exchange: Exchange, found: RouteResult<Route>): void | Promise<void> {
    const method = exchange.method;
    if (found.kind === "found") {
      ctx.params = found.params;
      // A body over its limit: answered 413 through the middleware, the route never runs.
      if (exchange.bodyRefused !== null) throw exchange.bodyRefused;
      const route = found.handler;
      if (route.continuation !== undefined) {
        return this.#continue(ctx, exchange, route.continuation);
      }
      if (route.webSocket !== undefined) return route.webSocket.upgrade(ctx, exchange);
      return route.handler.call(route.instance, ctx);
    }
    // RFC 9110 §15.6.2: a method the server does not implement at all is a 501 (a route that
    // uses the method was found above, so this check costs nothing on the served path).
    if (!knownMethods.has(method) && !this.#router.methods.has(method)) {
      return answerRouteMiss(ctx, 501, undefined, this.#errorHandling.format);
    }
    if (found.kind === "methodNotAllowed") {
      ctx.response.header("Allow", found.entry.allow);
      // RFC 9110 §9.3.7: OPTIONS on a known path lists what it allows.
      if (method === "OPTIONS") {
        ctx.response.setStatus(204);
        return;
      }
      return answerRouteMiss(ctx, 405, this.#miss.methodNotAllowed, this.#errorHandling.format);
    }
    // RFC 9110 §9.3.7: OPTIONS * asks about the server as a whole (the engine accepts the
    // asterisk-form for OPTIONS only, RFC 9112 §3.2.4).
    if (method === "OPTIONS" && exchange.path === "*") {
      ctx.response.header("Allow", this.#router.allow);
      ctx.response.setStatus(204);
      return;
    }
    return answerRouteMiss(ctx, 404, this.#miss.notFound, this.#errorHandling.format);
  }

  #finalize(response: ResponseDraft, exchange: Exchange): RequestOutcome {
    // A stream the handler finished ended the request already: that is a success.
    if (!exchange.live) return exchange.aborted ? "aborted" : "success";
    response.finalize();
    return "success";
  }

  #failed(ctx: AnyContext, exchange: Exchange, error: unknown): void | Promise<void> {
    if (!exchange.live && exchange.aborted) {
      this.#finish(ctx, exchange, "aborted");
      return;
    }
    if (ctx.response.headersSent) {
      if (exchange.live && !ctx.handlerSucceeded && exchange.aborted) {
        // The client left (or a deadline passed) mid-stream, as SSE clients do: an ordinary end.
        // Only the engine can end the stream honestly (no last chunk), so the error goes on to
        // it; its count of handler failures is corrected in stats().
        this.#streamsEndedByClient++;
        this.#finish(ctx, exchange, "aborted");
        throw error;
      }
      if (exchange.live && !ctx.handlerSucceeded) {
        // Part of the stream is out: only the engine can end it honestly (aborted, no last chunk).
        this.#failures.abortedStream(ctx, exchange, error);
        this.#finish(ctx, exchange, "error");
        throw error;
      }
      // The handler was done (an after hook failed) or its stream had finished: the response
      // ends normally, never truncated by what came after it.
      this.#failures.afterHeaders(ctx, exchange, error, ctx.handlerSucceeded);
      this.#finish(ctx, exchange, "error");
      return;
    }
    if (!exchange.hasWorker) return this.#failedWithoutWorker(ctx, exchange, error);
    ctx.error = error;
    const mapped = mapError(ctx, exchange, error, this.#errorHandling);
    if (mapped instanceof Promise) return mapped.then(() => this.#answerError(ctx, exchange));
    return this.#answerError(ctx, exchange);
  }

  /**
   * The `after` hooks of every middleware entered run on the error's answer too, so that what
   * they add (CORS, a request id) is on every answer. One failing there leaves a bare 500.
   */
  #answerError(ctx: AnyContext, exchange: Exchange): void | Promise<void> {
    if (!exchange.live) return this.#mapped(ctx, exchange, ctx.error);
    let hooks: void | Promise<void>;
    try {
      hooks = this.#hasAfter ? this.#after(ctx, ctx.enteredMiddleware - 1) : undefined;
    } catch (hookError) {
      return this.#afterHookFailed(ctx, exchange, hookError);
    }
    if (hooks instanceof Promise) {
      return hooks.then(
        () => this.#mapped(ctx, exchange, ctx.error),
        (hookError: unknown) => this.#afterHookFailed(ctx, exchange, hookError),
      );
    }
    this.#mapped(ctx, exchange, ctx.error);
  }

  #afterHookFailed(ctx: AnyContext, exchange: Exchange, hookError: unknown): void {
    internalError(ctx, exchange, this.#errorHandling.format);
    this.#mapped(ctx, exchange, hookError);
  }

  /** The error is answered: a 5xx is the server's failure, counted and logged. */
  #mapped(ctx: AnyContext, exchange: Exchange, error: unknown): void {
    if (exchange.live) {
      ctx.response.finalize();
      // A client that left is no server failure, whatever its leaving made the handler throw.
      if (exchange.status >= 500 && !exchange.aborted) {
        this.#failures.answered(ctx, exchange, error);
      }
    }
    this.#finish(ctx, exchange, exchange.aborted ? "aborted" : "error");
  }

  #cleanup(ctx: AnyContext, outcome: RequestOutcome, exchange: Exchange): void {
    if (!this.#hasCleanup) return;
    const chain = this.#middleware;
    let effective: RequestOutcome | undefined;
    for (let index = ctx.enteredMiddleware - 1; index >= 0; index--) {
      const cleanup = chain[index]!.cleanup;
      if (cleanup === undefined) continue;
      effective ??= outcome !== "aborted" && exchange.aborted ? "aborted" : outcome;
      try {
        cleanup(ctx, effective);
      } catch {
        // A failing cleanup must not keep the others from running; the response is decided.
      }
    }
  }
}

/** One middleware as the chain runs it: its hooks, each present or undefined. */
type ChainLink = { readonly [Hook in "before" | "after" | "cleanup"]: AnyMiddleware[Hook] };

// biome-ignore lint/suspicious/noExplicitAny: middleware of every type share one chain.
type AnyMiddleware = Middleware<any, any, any>;

const noParams: Readonly<Record<string, string>> = Object.freeze({});
