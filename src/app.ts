import {
  createEngine,
  type Engine,
  type Exchange,
  type Limits,
  resolveLimits,
} from "corral/engine";
import type { Context } from "./context.ts";
import { type ContinuationSpec, validateContinuationSpec } from "./continuation.ts";
import type { ErrorHandling } from "./error-mapping.ts";
import type { ErrorFormat } from "./errors/error-format.ts";
import { type AppLog, defaultLogLimits, FailureLog, type LogLimits } from "./failure-log.ts";
import { HandlerFailures } from "./handler-failures.ts";
import { assertNotHotReloading } from "./hot-reload.ts";
import { type InProcessRequestInit, requestInProcess } from "./in-process.ts";
import { type Io, systemIo } from "./io.ts";
import { checkMiddleware, type Middleware, type NoLocals } from "./middleware.ts";
import { optionNames, refuseUnknownOptions } from "./option-names.ts";
import type { RedisConnection } from "./redis/redis-connection.ts";
import { type AppStats, RedisCounters } from "./redis/redis-stats.ts";
import type { RedisSubscriber } from "./redis/redis-subscriber.ts";
import { type AnyHandler, type AnyMiddleware, RequestPipeline } from "./request-pipeline.ts";
import type { RequestViewLimits } from "./request-view.ts";
import { assertHttpMethod, type HttpMethod } from "./router/http-methods.ts";
import type { PathParams } from "./router/path-params.ts";
import { endpointMethods } from "./router/router.ts";
import {
  type InProcessWebSocket,
  type InProcessWebSocketOptions,
  openInProcessWebSocket,
} from "./testing/in-process-websocket.ts";
import { requestScopeEnabled, runInRequestScope } from "./waiting/request-scope.ts";
import { defaultRoomLimits, type RoomLimits, Rooms } from "./websocket/rooms.ts";
import { WebSocketEndpoint, type WebSocketRoute } from "./websocket/websocket-route.ts";

/**
 * The App's limits: the engine's, those of the request views, of its failure reports and of its
 * WebSocket rooms.
 */
export interface AppLimits extends Limits, RequestViewLimits, LogLimits, RoomLimits {}

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

/**
 * The shared state of an App made without any (`new App()`, `new App({ limits })`): `ctx.shared`
 * is then an empty object of the App's own.
 */
export type NoShared = Record<never, never>;

/** Options of `new App()`. */
export interface AppOptions<Shared> {
  /**
   * The shared state handlers see as `ctx.shared`; one object for the App's life. Required when
   * `Shared` has required properties; otherwise an empty object of the App's own by default.
   */
  readonly shared: Shared;
  /** Overrides of the engine's and the App's limits. */
  readonly limits?: Partial<AppLimits>;
  /** Clocks, timers and randomness; `systemIo` by default. */
  readonly io?: Io;
  /**
   * Where handler errors are reported, once each: those answered with a 5xx (method, path,
   * status, the error with its stack) and those after a stream's headers were sent, each kind
   * (status and error name) in full up to `limits.failureReportsPerSecond` a second, and past it
   * counted in one summary line when the second ends. `console` by default; `null` for silence.
   * The client never sees any of it.
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

const appOptionNames = optionNames<AppOptions<unknown>>({
  shared: true,
  limits: true,
  io: true,
  log: true,
  errorFormat: true,
});
const listenOptionNames = optionNames<AppListenOptions>({
  hostname: true,
  port: true,
  reusePort: true,
  log: true,
});
const routeOptionNames = optionNames<RouteOptions>({ body: true });

/** What `app.all()` registers: every method but HEAD, which GET's handler answers. */
const allMethods: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

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
export class App<Shared = NoShared, Locals extends object = NoLocals> {
  /** The shared state (stable identity). */
  readonly shared: Shared;
  /** The App's Io. */
  readonly io: Io;
  /** The limits in force. */
  readonly limits: AppLimits;
  /** The WebSocket rooms of this App (see `app.ws`); `rooms.bridge()` spreads them over processes. */
  readonly rooms: Rooms;
  readonly #pipeline: RequestPipeline;
  readonly #failures: HandlerFailures;
  readonly #failureLog: FailureLog;
  #engine: Engine | undefined;
  /** Whether some route streams its body: without one the engine is not asked per request. */
  #streamsBodies = false;
  #redis: RedisCounters | undefined;
  /** Dispatch keys given to routes so far (0 is the unrouted answers'). */
  #routeKeys = 0;
  #listening = false;
  #stopped = false;

  /** An App whose handlers share `options.shared` (as `ctx.shared`). */
  constructor(options: AppOptions<Shared>);
  /**
   * An App without shared state (`new App()`, `new App({ limits })`): `ctx.shared` is an empty
   * object. A `Shared` type with required properties needs `shared` (a type error without it).
   */
  constructor(
    ...options: NoShared extends Shared ? [options?: Partial<AppOptions<Shared>>] : never
  );
  constructor(options?: Partial<AppOptions<Shared>>) {
    if (options !== undefined && (typeof options !== "object" || options === null)) {
      throw new TypeError(`corral: new App() takes an options object, got ${String(options)}`);
    }
    options ??= {};
    refuseUnknownOptions(options, appOptionNames, "new App()");
    this.shared = "shared" in options ? (options.shared as Shared) : ({} as Shared);
    this.io = options.io ?? systemIo;
    const {
      maxParameters,
      maxMultipartParts,
      maxMultipartPartHeaderBytes,
      failureReportsPerSecond,
      maxRoomsPerSocket,
      maxRoomMemberships,
      maxRoomNameLength,
      ...engineLimits
    } = options.limits ?? {};
    const appLimits = {
      maxParameters: maxParameters ?? defaultRequestViewLimits.maxParameters,
      maxMultipartParts: maxMultipartParts ?? defaultRequestViewLimits.maxMultipartParts,
      maxMultipartPartHeaderBytes:
        maxMultipartPartHeaderBytes ?? defaultRequestViewLimits.maxMultipartPartHeaderBytes,
      failureReportsPerSecond: failureReportsPerSecond ?? defaultLogLimits.failureReportsPerSecond,
      maxRoomsPerSocket: maxRoomsPerSocket ?? defaultRoomLimits.maxRoomsPerSocket,
      maxRoomMemberships: maxRoomMemberships ?? defaultRoomLimits.maxRoomMemberships,
      maxRoomNameLength: maxRoomNameLength ?? defaultRoomLimits.maxRoomNameLength,
    };
    for (const [name, value] of Object.entries(appLimits)) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`corral: limit ${name} must be a whole number >= 1, got ${value}`);
      }
    }
    this.limits = Object.freeze({ ...resolveLimits(engineLimits), ...appLimits });
    this.rooms = new Rooms(this.limits);
    this.#failureLog = new FailureLog(
      options.log === undefined ? console : options.log,
      this.io,
      this.limits,
    );
    this.#failures = new HandlerFailures(this.#failureLog);
    const format = options.errorFormat ?? "text";
    if (format !== "text" && format !== "problem") {
      throw new TypeError(`corral: errorFormat must be "text" or "problem", got ${format}`);
    }
    this.#pipeline = new RequestPipeline(this, this.#failures, { format, onError: undefined });
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
    refuseUnknownOptions(options, routeOptionNames, "app.route()");
    const body = options.body ?? "buffer";
    if (body !== "buffer" && body !== "stream") {
      throw new TypeError(`corral: route option body must be "buffer" or "stream", got ${body}`);
    }
    const streamsBody = body === "stream";
    if (streamsBody) this.#streamsBodies = true;
    this.#pipeline.router.add(method, path, {
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
    validateContinuationSpec(spec as unknown as ContinuationSpec<never, never, never, never>);
    const handler = (() => {
      throw new TypeError("corral: continuations run through the App");
    }) as AnyHandler;
    this.#pipeline.router.add(method, path, {
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
      path,
      route,
      this.rooms,
      this.#failures,
      this.limits.maxWebSocketMessageBytes,
    );
    const handler = (() => {
      throw new TypeError("corral: WebSocket routes run through the App");
    }) as AnyHandler;
    this.#pipeline.router.add("GET", path, {
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
      this.#pipeline.router.add(name.toUpperCase(), path, {
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
    checkMiddleware(middleware);
    this.#pipeline.use(middleware as AnyMiddleware);
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
    this.#assertNotStarted();
    const pipeline = this.#pipeline;
    if (pipeline.errorHandling.onError !== undefined) throw setTwiceError("onError");
    pipeline.errorHandling = {
      format: pipeline.errorHandling.format,
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
    if (this.#pipeline.miss.notFound !== undefined) throw setTwiceError("notFound");
    this.#pipeline.miss.notFound = handler as AnyHandler;
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
    if (this.#pipeline.miss.methodNotAllowed !== undefined) throw setTwiceError("methodNotAllowed");
    this.#pipeline.miss.methodNotAllowed = handler as AnyHandler;
    return this;
  }

  /**
   * Starts serving on `hostname` (127.0.0.1 by default) and `port`; prints the budget line.
   * Under `bun --hot` it is a `TypeError` that says to use `bun --watch` (see `docs/guide.md`).
   */
  listen(options: AppListenOptions): AppServer {
    if (this.#listening) {
      throw new TypeError(
        "corral: this App is already listening (a module given to serve() or the corral " +
          "command exports its App and must not call listen() itself)",
      );
    }
    if (typeof options !== "object" || options === null) {
      // listen(3000), as Elysia writes it, would otherwise fail on the port it did not find.
      throw new TypeError(
        `corral: listen() takes an options object, as listen({ port: 3000 }), got ${String(options)}`,
      );
    }
    refuseUnknownOptions(options, listenOptionNames, "app.listen()");
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
    // Checked before anything stops: the engine would refuse it with the App half stopped.
    if (options !== undefined) refuseUnknownOptions(options, ["graceMs"], "stop()");
    this.#stopped = true;
    await this.#engine?.stop(options);
    // What the last second counted without logging is written now, not lost with the process.
    this.#failureLog.flush();
  }

  /**
   * Exact engine counters. `handlerFailures` counts every handler (and middleware) error answered
   * with a 5xx, every stream aborted by one, and every one that came after the headers were
   * sent, and every WebSocket callback that threw or rejected (`webSockets.callbackFailures`):
   * with no other server errors and no WebSockets, it equals the 5xx answers plus the aborted
   * streams. A client leaving (an SSE client closing its connection, say) or a deadline is an
   * ordinary `"aborted"` outcome: neither counted here nor logged. `redis` is there once
   * `includeRedisStats()` was called.
   *
   * @example
   * const { requests, redis } = app.stats();
   */
  stats(): AppStats {
    const stats = this.#ensureEngine().stats();
    const handlerFailures =
      stats.handlerFailures - this.#pipeline.streamsEndedByClient + this.#failures.count;
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
      throw new TypeError(
        "corral: routes, middleware and error handlers must be added before listen()",
      );
    }
  }

  #ensureEngine(): Engine {
    const pipeline = this.#pipeline;
    const handle = (exchange: Exchange) => pipeline.handle(exchange);
    this.#engine ??= createEngine({
      limits: this.#engineLimits(),
      handler: (exchange) =>
        requestScopeEnabled() ? runInRequestScope(exchange, handle) : pipeline.handle(exchange),
      streamBodies: this.#streamsBodies ? (exchange) => pipeline.streamsBody(exchange) : undefined,
      dispatchKey: (exchange) => pipeline.dispatchKey(exchange),
      // The App answers a body over its limit itself, so the 413 carries what middleware set.
      dispatchOversizedBodies: true,
      // Each request counts 1 toward the young collections (requestCollectionWeight): at 4, the
      // demo's memory test peaked 141-146 MiB instead of 149-154, but a minimal route's
      // in-process pipelined hello took 0.85-0.92 µs instead of 0.75-0.77 (an eden collection
      // costs about 0.5 ms even with little garbage).
      log: null,
      // A bug of the engine's, never a handler's error: logged like those, bounded the same way.
      onInternalError: (error) =>
        this.#failureLog.report(
          "internal error",
          "corral: an internal error closed a connection (stats().internalErrors):",
          error,
        ),
    });
    return this.#engine;
  }

  #engineLimits(): Limits {
    const {
      maxParameters: _parameters,
      maxMultipartParts: _parts,
      maxMultipartPartHeaderBytes: _headers,
      failureReportsPerSecond: _reports,
      maxRoomsPerSocket: _roomsPerSocket,
      maxRoomMemberships: _memberships,
      maxRoomNameLength: _nameLength,
      ...limits
    } = this.limits;
    return limits;
  }
}

/** A second `onError`, `notFound` or `methodNotAllowed` would replace the first without a word. */
function setTwiceError(method: string): TypeError {
  return new TypeError(
    `corral: app.${method}() was called already; an App has one, so the second would replace the first: do both in one function`,
  );
}
