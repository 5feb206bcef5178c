import type { Exchange } from "corral/engine";
import { type AnyContext, Context } from "./context.ts";
import { type ContinuationSpec, runContinuation } from "./continuation.ts";
import {
  type AnswerFailures,
  type ErrorHandling,
  internalError,
  mapError,
} from "./error-mapping.ts";
import { answerRouteMiss, type MissHandlers } from "./errors/route-miss.ts";
import { answerOf } from "./errors/status-error.ts";
import type { HandlerFailures } from "./handler-failures.ts";
import type { Io } from "./io.ts";
import type { Middleware, RequestOutcome } from "./middleware.ts";
import { PipelineCompletion } from "./pipeline-completion.ts";
import { RequestView, type RequestViewLimits } from "./request-view.ts";
import { ResponseDraft } from "./response-draft.ts";
import { type ReturnedValueSource, returnedValueError } from "./returned-value.ts";
import { type RouteResult, Router } from "./router/router.ts";
import type { WebSocketEndpoint } from "./websocket/websocket-route.ts";

// biome-ignore lint/suspicious/noExplicitAny: handlers of every route share one table.
export type AnyHandler = (ctx: Context<any, any, any>) => void | Promise<void>;

/** What the router finds for a request: a handler, a continuation or a WebSocket endpoint. */
export interface Route {
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
const knownMethods = new Set<string>(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** What every request of an App sees: its limits, clocks and shared state. */
export interface PipelineSetting {
  readonly limits: RequestViewLimits;
  readonly io: Io;
  readonly shared: unknown;
}

/**
 * One App's way from an engine exchange to an answer: the context and views of the request, the
 * middleware chain, the router's route (found once, also for the dispatch key), the handler,
 * error mapping and cleanup. The App registers routes and middleware on it and hands the engine
 * its `handle`, `dispatchKey` and `streamsBody`.
 */
export class RequestPipeline {
  readonly router = new Router<Route>();
  readonly miss: MissHandlers = { notFound: undefined, methodNotAllowed: undefined };
  errorHandling: ErrorHandling;
  /** Streams the engine counted as failed handlers that a client's leaving ended. */
  streamsEndedByClient = 0;
  readonly #limits: RequestViewLimits;
  readonly #io: Io;
  readonly #shared: unknown;
  readonly #failures: HandlerFailures;
  readonly #chain: ChainLink[] = [];
  /** Whether any middleware has an `after` hook: without one, that walk is skipped. */
  #hasAfter = false;
  /** Whether any middleware has a `cleanup` hook: without one, that walk is skipped. */
  #hasCleanup = false;
  #routedExchange: Exchange | undefined;
  #routed: RouteResult<Route> | undefined;

  constructor(setting: PipelineSetting, failures: HandlerFailures, errorHandling: ErrorHandling) {
    this.#limits = setting.limits;
    this.#io = setting.io;
    this.#shared = setting.shared;
    this.#failures = failures;
    this.errorHandling = errorHandling;
  }

  /** Appends a middleware to the chain; its hooks are read once, here. */
  use(middleware: AnyMiddleware): void {
    // Every link has the same four fields, so reading an absent hook is a plain load, and
    // changing the object later does not change the chain. The hooks are called on their
    // middleware (`this` is it), so an instance with state may be one.
    const { before, after, cleanup } = middleware;
    this.#chain.push({ before, after, cleanup, owner: middleware });
    if (after !== undefined) this.#hasAfter = true;
    if (cleanup !== undefined) this.#hasCleanup = true;
  }

  /**
   * The request's route, found once: the dispatch key asks first, the pipeline reuses it (a
   * request that waited in the queue is looked up again, as later requests replaced it).
   */
  #route(exchange: Exchange): RouteResult<Route> {
    if (exchange === this.#routedExchange) return this.#routed!;
    const found = this.router.find(exchange.method, exchange.path);
    this.#routedExchange = exchange;
    this.#routed = found;
    return found;
  }

  /**
   * Fair dispatch by route: requests of one route (method and pattern) share a key, and every
   * unrouted answer (404, 405, 501) shares one, so no route can make the others queue.
   */
  dispatchKey(exchange: Exchange): number {
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
  streamsBody(exchange: Exchange): boolean {
    let found: RouteResult<Route>;
    try {
      found = this.#route(exchange);
    } catch {
      // As in dispatchKey: the body is read whole, and the pipeline maps the error (400).
      return false;
    }
    return found.kind === "found" && found.handler.streamsBody === true;
  }

  /**
   * One request through the pipeline. The synchronous path (hooks and handler returning plainly)
   * runs inside this one function: every call layer on it measurably slowed the pipelined
   * benchmark. A hook or handler that returns a promise branches out to #resume and #settle.
   */
  handle(exchange: Exchange): void | Promise<void> | PipelineCompletion {
    const request = new RequestView(exchange, this.#limits);
    const response = new ResponseDraft(exchange);
    const ctx = new Context<unknown, Readonly<Record<string, string>>, object>(
      exchange,
      this.#io,
      this.#shared,
      request,
      response,
      noParams,
    );
    const chain = this.#chain;
    let result: void | Promise<void>;
    let outcome: RequestOutcome;
    try {
      for (let index = 0; ; index++) {
        if (index === chain.length) {
          ctx.middlewareHeaderLength = index === 0 ? 0 : exchange.draftedHeaderLength;
          if (index !== 0) response.handlerStarts();
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
          // Without `after` hooks a pending handler is settled as it is: no promise in between.
          if (!(result instanceof Promise)) {
            if (result !== undefined) throw returnedValueError("a route handler", result);
            result = this.#after(ctx, index - 1);
          } else if (this.#hasAfter) result = this.#afterSettled(result, ctx, index - 1);
          break;
        }
        const link = chain[index]!;
        const before = link.before;
        ctx.enteredMiddleware = index + 1;
        if (before === undefined) continue;
        const early = before.call(link.owner, ctx);
        if (early instanceof Promise) {
          result = this.#resume(early, ctx, exchange, index + 1);
          break;
        }
        if (early === "stop") {
          result = this.#stopped(ctx, exchange, index);
          break;
        }
        if (early !== undefined) throw returnedValueError("a before hook", early);
      }
      if (result instanceof Promise) return this.#settle(result, ctx, exchange);
      // Finalizing may still fail (a stream short of its declared length): mapped like the rest.
      outcome = this.#finalize(response, exchange);
    } catch (error) {
      return this.#failed(ctx, exchange, error);
    }
    this.#finish(ctx, exchange, outcome);
  }

  // The promise callbacks live in these small methods, not in handle, #run and #after: a closure
  // over a function's parameters can make JavaScriptCore allocate a scope object on every call of
  // that function, and inside handle it measurably slowed every request, async or not.

  /** Finishes the request when an asynchronous pipeline settles, and then tells the engine. */
  #settle(pending: Promise<void>, ctx: AnyContext, exchange: Exchange): PipelineCompletion {
    const completion = new PipelineCompletion();
    pending.then(
      (value: unknown) => this.#settled(completion, ctx, exchange, false, value),
      (error: unknown) => this.#settled(completion, ctx, exchange, true, error),
    );
    return completion;
  }

  /**
   * Ends the request (`failed`: with `outcome`, the error, mapped; else `outcome` is what the
   * pipeline resolved to, a route handler's value when it returned one) and hands the outcome to
   * `completion`.
   */
  #settled(
    completion: PipelineCompletion,
    ctx: AnyContext,
    exchange: Exchange,
    failed: boolean,
    outcome: unknown,
  ): void {
    let result: void | Promise<void>;
    try {
      if (!failed && outcome !== undefined) {
        result = this.#failed(ctx, exchange, returnedValueError("a route handler", outcome));
      } else {
        result = failed ? this.#failed(ctx, exchange, outcome) : this.#succeeded(ctx, exchange);
      }
    } catch (thrown) {
      completion.fail(thrown);
      return;
    }
    completion.follow(result);
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
    let outcome: RequestOutcome;
    try {
      outcome = this.#finalize(ctx.response, exchange);
    } catch (error) {
      return this.#failed(ctx, exchange, error);
    }
    this.#finish(ctx, exchange, outcome);
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
    return pending.then((value) => {
      if (value === "stop") return this.#stopped(ctx, exchange, next - 1);
      if (value !== undefined) throw returnedValueError("a before hook", value);
      return this.#run(ctx, exchange, next);
    });
  }

  /**
   * Runs the `after` hooks from `from` down when `pending` (a route handler's promise, or an
   * after hook's: `what`) settles.
   */
  #afterSettled(
    pending: Promise<void>,
    ctx: AnyContext,
    from: number,
    what: ReturnedValueSource = "a route handler",
  ): Promise<void> {
    return pending.then((value: unknown) => {
      if (value !== undefined) throw returnedValueError(what, value);
      return this.#after(ctx, from);
    });
  }

  /** Runs the cleanups, then ends the request views. */
  #finish(ctx: AnyContext, exchange: Exchange, outcome: RequestOutcome): void {
    this.#cleanup(ctx, outcome, exchange);
    ctx.request.end();
  }

  /**
   * The chain from `index` on, the handler, then the `after` hooks: what is left once a `before`
   * hook settled (handle runs the synchronous start of the same walk itself).
   */
  #run(ctx: AnyContext, exchange: Exchange, index: number): void | Promise<void> {
    const chain = this.#chain;
    for (; index < chain.length; index++) {
      const link = chain[index]!;
      const before = link.before;
      ctx.enteredMiddleware = index + 1;
      if (before === undefined) continue;
      const early = before.call(link.owner, ctx);
      if (early instanceof Promise) return this.#resume(early, ctx, exchange, index + 1);
      if (early === "stop") return this.#stopped(ctx, exchange, index);
      if (early !== undefined) throw returnedValueError("a before hook", early);
    }
    ctx.middlewareHeaderLength = exchange.draftedHeaderLength;
    ctx.response.handlerStarts();
    const result = this.#dispatch(ctx, exchange, this.#route(exchange));
    if (result instanceof Promise) return this.#afterSettled(result, ctx, chain.length - 1);
    if (result !== undefined) throw returnedValueError("a route handler", result);
    return this.#after(ctx, chain.length - 1);
  }

  /**
   * The before hook `from` returned "stop": the header lines drafted so far are the before
   * hooks' (an after hook's are not: a failing one discards them), then the after hooks run.
   */
  #stopped(ctx: AnyContext, exchange: Exchange, from: number): void | Promise<void> {
    ctx.middlewareHeaderLength = exchange.draftedHeaderLength;
    return this.#after(ctx, from);
  }

  #after(ctx: AnyContext, from: number): void | Promise<void> {
    if (!this.#hasAfter) return;
    ctx.response.handlerEnded();
    ctx.handlerSucceeded = true;
    const chain = this.#chain;
    for (let index = from; index >= 0; index--) {
      const link = chain[index]!;
      const after = link.after;
      if (after === undefined) continue;
      const result = after.call(link.owner, ctx);
      if (result instanceof Promise) {
        return this.#afterSettled(result, ctx, index - 1, "an after hook");
      }
      if (result !== undefined) throw returnedValueError("an after hook", result);
    }
  }

  /** Runs a continuation (its closure kept out of #dispatch, as for #settle). */
  // biome-ignore lint/suspicious/noExplicitAny: continuations of every state type share one table.
  #continue(ctx: AnyContext, exchange: Exchange, spec: ContinuationSpec<any, any, any, any>) {
    return runContinuation(
      ctx,
      exchange,
      this.#io,
      spec,
      () => ctx.request.releaseBody("in state()"),
      (error) => this.#failures.cleanupFailed(ctx, exchange, error),
      (what, error) => this.#failures.survived(ctx, exchange, what, error),
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
    // The router's answer would replace what a before hook drafted and forgot to "stop" on, as
    // a handler's would: refused the same way, with a message that names the router.
    if (ctx.response.guarded) throw routerAnswerError(method, exchange.path, ctx.response.status);
    // RFC 9110 §15.6.2: a method the server does not implement at all is a 501 (a route that
    // uses the method was found above, so this check costs nothing on the served path).
    if (!knownMethods.has(method) && !this.router.methods.has(method)) {
      return answerRouteMiss(ctx, 501, undefined, this.errorHandling.format);
    }
    if (found.kind === "methodNotAllowed") {
      ctx.response.header("Allow", found.allow);
      // RFC 9110 §9.3.7: OPTIONS on a known path lists what it allows.
      if (method === "OPTIONS") {
        ctx.response.setStatus(204);
        return;
      }
      return answerRouteMiss(ctx, 405, this.miss.methodNotAllowed, this.errorHandling.format);
    }
    // RFC 9110 §9.3.7: OPTIONS * asks about the server as a whole (the engine accepts the
    // asterisk-form for OPTIONS only, RFC 9112 §3.2.4).
    if (method === "OPTIONS" && exchange.path === "*") {
      ctx.response.header("Allow", this.router.allow);
      ctx.response.setStatus(204);
      return;
    }
    return answerRouteMiss(ctx, 404, this.miss.notFound, this.errorHandling.format);
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
        this.streamsEndedByClient++;
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
    // A before hook threw: the header lines drafted so far are the before hooks' and stay on the
    // error's answer; those the after hooks add to it are not (a bare 500 drops them).
    if (ctx.middlewareHeaderLength < 0) ctx.middlewareHeaderLength = exchange.draftedHeaderLength;
    ctx.error = error;
    // An object, not a closure: #failed may be inlined into handle, where a closure over ctx
    // and exchange would make every request allocate a scope for them.
    const answering = new ErrorAnswering(this.#failures, ctx, exchange);
    const mapped = mapError(ctx, exchange, error, this.errorHandling, answering);
    if (mapped instanceof Promise) {
      return mapped.then(() => this.#answerError(ctx, exchange, answering));
    }
    return this.#answerError(ctx, exchange, answering);
  }

  /**
   * The `after` hooks of every middleware entered run on the error's answer too, so that what
   * they add (CORS, a request id) is on every answer. One failing there leaves a bare 500.
   */
  #answerError(
    ctx: AnyContext,
    exchange: Exchange,
    answering: ErrorAnswering,
  ): void | Promise<void> {
    if (!exchange.live) return this.#mapped(ctx, exchange, ctx.error, answering);
    let hooks: void | Promise<void>;
    try {
      hooks = this.#hasAfter ? this.#after(ctx, ctx.enteredMiddleware - 1) : undefined;
    } catch (hookError) {
      return this.#afterHookFailed(ctx, exchange, answering, hookError);
    }
    if (hooks instanceof Promise) {
      return hooks.then(
        () => this.#mapped(ctx, exchange, ctx.error, answering),
        (hookError: unknown) => this.#afterHookFailed(ctx, exchange, answering, hookError),
      );
    }
    this.#mapped(ctx, exchange, ctx.error, answering);
  }

  #afterHookFailed(
    ctx: AnyContext,
    exchange: Exchange,
    answering: ErrorAnswering,
    hookError: unknown,
  ): void {
    internalError(ctx, exchange, this.errorHandling.format);
    answering.report("an after hook", hookError);
    this.#mapped(ctx, exchange, ctx.error, answering);
  }

  /**
   * The error is answered: a 5xx is the server's failure, counted and logged. When something
   * failed while answering it (logged already), the error itself is logged only if it was a
   * server error in its own right: a 404 made a 500 by a failing hook is the hook's failure.
   */
  #mapped(ctx: AnyContext, exchange: Exchange, error: unknown, answering: ErrorAnswering): void {
    if (exchange.live) {
      ctx.response.finalize();
      // A client that left is no server failure, whatever its leaving made the handler throw.
      if (
        exchange.status >= 500 &&
        !exchange.aborted &&
        (!answering.failed || (answerOf(error)?.status ?? 500) >= 500)
      ) {
        this.#failures.answered(ctx, exchange, error);
      }
    }
    this.#finish(ctx, exchange, exchange.aborted ? "aborted" : "error");
  }

  #cleanup(ctx: AnyContext, outcome: RequestOutcome, exchange: Exchange): void {
    if (!this.#hasCleanup) return;
    const chain = this.#chain;
    let effective: RequestOutcome | undefined;
    for (let index = ctx.enteredMiddleware - 1; index >= 0; index--) {
      const link = chain[index]!;
      if (link.cleanup === undefined) continue;
      effective ??= outcome !== "aborted" && exchange.aborted ? "aborted" : outcome;
      this.#runCleanup(link, ctx, exchange, effective);
    }
  }

  // Apart from #cleanup's loop: with the try inside it, JavaScriptCore's compiled loop failed a
  // TDZ check at its head on every request (3,105 exits in 4 s of compress()'s load, and #cleanup
  // and handle, which inlines it, compiled 11 times each and left in DFG; bench/jit-churn.ts).
  #runCleanup(link: ChainLink, ctx: AnyContext, exchange: Exchange, outcome: RequestOutcome) {
    try {
      link.cleanup!.call(link.owner, ctx, outcome);
    } catch (error) {
      // A failing cleanup must not keep the others from running; the response is decided.
      this.#failures.cleanupFailed(ctx, exchange, error);
    }
  }
}

function routerAnswerError(method: string, path: string, status: number): TypeError {
  return new TypeError(
    `corral: no route serves ${method} ${path}, and the router's answer would replace the ` +
      `answer a before hook drafted (status ${status}) without returning "stop"; a before hook ` +
      `that answers returns "stop"`,
  );
}

/** What failed while one error was answered: each logged at once, and whether any did. */
class ErrorAnswering implements AnswerFailures {
  failed = false;
  readonly #failures: HandlerFailures;
  readonly #ctx: AnyContext;
  readonly #exchange: Exchange;

  constructor(failures: HandlerFailures, ctx: AnyContext, exchange: Exchange) {
    this.#failures = failures;
    this.#ctx = ctx;
    this.#exchange = exchange;
  }

  /** `what` threw while the error was answered: logged; the answer is a bare 500 now. */
  report(what: string, thrown: unknown): void {
    this.failed = true;
    this.#failures.answerFailed(this.#ctx, this.#exchange, what, thrown);
  }
}

/** One middleware as the chain runs it: its hooks, each present or undefined. */
type ChainLink = { readonly [Hook in "before" | "after" | "cleanup"]: AnyMiddleware[Hook] } & {
  readonly owner: AnyMiddleware;
};

// biome-ignore lint/suspicious/noExplicitAny: middleware of every type share one chain.
export type AnyMiddleware = Middleware<any, any, any>;

const noParams: Readonly<Record<string, string>> = Object.freeze({});
