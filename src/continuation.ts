import type { Exchange } from "corral/engine";
import type { Context } from "./context.ts";
import { HttpError } from "./http-error.ts";
import type { Io, IoTimer } from "./io.ts";
import type { RequestOutcome } from "./middleware.ts";
import type { Notifier, NotifierListener } from "./notifier.ts";
import { RedisUnavailableError } from "./redis/redis-unavailable-error.ts";
import type { StreamWriter } from "./response-stream.ts";

/** What a continuation step asks for next. */
export type StepResult = "flush" | "wait" | "finish";

/** Why a step runs: the first step, a notification, the `wakeAfterMs` timer, or a `"flush"`. */
export type StepReason = "start" | "notified" | "timer" | "flushed";

/**
 * A long-lived streamed response as a typed state machine: `state` is made once per request,
 * then `step` runs whenever there may be something to write and answers `"flush"` (send, then
 * step again), `"wait"` (send, then sleep until woken) or `"finish"` (end the stream).
 *
 * In the default `"pooled"` mode a waiting continuation holds no worker, only its state: a
 * notification or its timer wakes it and it takes a worker again to write, so thousands of open
 * streams share a few workers. `"inline"` keeps the worker for the stream's life (a plain stream).
 */
export interface ContinuationSpec<Shared, Params, Locals, State> {
  /** Response status (200 by default). */
  readonly status?: number;
  /** Response content type, e.g. `text/event-stream; charset=utf-8`. */
  readonly contentType: string;
  /** Wakes waiting steps; its capacity bounds the open continuations (a full one answers 503). */
  readonly notifier?: Notifier;
  /**
   * Also wake a waiting step once this long has passed since the stream last wrote or was last
   * woken by this timer (heartbeats, polling); none by default. Wakes by the notifier that
   * write nothing (another stream's event) do not put it off.
   */
  readonly wakeAfterMs?: number;
  /** `"pooled"` (give the worker back while waiting, the default) or `"inline"` (keep it). */
  readonly mode?: "pooled" | "inline";
  /** Makes the request's state, once; the request (and its body) can be read here. */
  readonly state: (ctx: Context<Shared, Params, Locals>) => State | Promise<State>;
  /**
   * True for a new state that has nothing to stream: the request is answered 204 No Content
   * (headers set in `state` kept) and no stream opens. An `EventSource` stops reconnecting on a
   * 204 (WHATWG HTML §9.2), so this is how a finished event stream turns a reconnect away.
   */
  readonly noContent?: (state: NoInfer<State>) => boolean;
  /** Writes what is due and says what comes next. */
  readonly step: (
    ctx: Context<Shared, Params, Locals>,
    state: NoInfer<State>,
    writer: StreamWriter,
    reason: StepReason,
  ) => StepResult | Promise<StepResult>;
  /**
   * Runs before every resumed step; false ends the stream (e.g. the session was revoked). When
   * it throws a `RedisUnavailableError` (its session store is on Redis, which is down), the step
   * is skipped and the stream waits for its next wake, to check again: an outage neither ends
   * nor aborts the open streams, and nothing is written meanwhile.
   */
  readonly resume?: (
    ctx: Context<Shared, Params, Locals>,
    state: State,
  ) => boolean | Promise<boolean>;
  /** Runs exactly once at the end: finished, failed, timed out or disconnected. */
  readonly cleanup?: (state: NoInfer<State>, outcome: RequestOutcome) => void;
}

/** Throws a TypeError or RangeError naming what is wrong in `spec`, at registration. */
export function validateContinuationSpec(spec: ContinuationSpec<never, never, never, never>): void {
  if (typeof spec?.step !== "function" || typeof spec.state !== "function") {
    throw new TypeError("corral: a continuation needs state() and step() functions");
  }
  for (const name of ["noContent", "resume", "cleanup"] as const) {
    if (spec[name] !== undefined && typeof spec[name] !== "function") {
      throw new TypeError(`corral: continuation option ${name} must be a function`);
    }
  }
  const { wakeAfterMs, status, mode } = spec;
  if (wakeAfterMs !== undefined && (!Number.isSafeInteger(wakeAfterMs) || wakeAfterMs < 1)) {
    throw new RangeError(
      `corral: wakeAfterMs must be a whole number of milliseconds >= 1, got ${wakeAfterMs}`,
    );
  }
  if (status !== undefined && (!Number.isInteger(status) || status < 200 || status > 599)) {
    throw new RangeError(`corral: a continuation's status must be from 200 to 599, got ${status}`);
  }
  // RFC 9110 §15.3.5, §15.3.6, §15.4.5: no content, so nothing to stream (every request a 500).
  if (status === 204 || status === 205 || status === 304) {
    throw new RangeError(`corral: a continuation streams content, which a ${status} cannot have`);
  }
  if (mode !== undefined && mode !== "pooled" && mode !== "inline") {
    throw new TypeError(`corral: a continuation's mode is "pooled" or "inline", got ${mode}`);
  }
}

/** Waits for a notifier or a timer; a wake that comes while the step runs is not lost. */
class Waiter implements NotifierListener {
  #pending = false;
  #resolve: ((reason: StepReason) => void) | null = null;

  wake(): void {
    this.#settle("notified");
  }

  #settle(reason: StepReason): void {
    const resolve = this.#resolve;
    if (resolve === null) {
      if (reason === "notified") this.#pending = true;
      return;
    }
    this.#resolve = null;
    resolve(reason);
  }

  wait(io: Io, signal: AbortSignal, wakeAfterMs: number | undefined): Promise<StepReason> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve("notified");
    }
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<StepReason>((resolve, reject) => {
      let timer: IoTimer | undefined;
      const onAbort = () => {
        timer?.cancel();
        this.#resolve = null;
        reject(signal.reason);
      };
      this.#resolve = (reason) => {
        timer?.cancel();
        signal.removeEventListener("abort", onAbort);
        resolve(reason);
      };
      if (wakeAfterMs !== undefined) timer = io.setTimer(wakeAfterMs, () => this.#settle("timer"));
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** Where each running continuation reports a failure it survives (see `reportSurvivedFailure`). */
const survivedFailureReports = new WeakMap<object, (what: string, error: unknown) => void>();

/**
 * Logs and counts (`stats().handlerFailures`) an error the continuation of `ctx` goes on after:
 * `what` says what was given up (one event that could not be encoded, say). Outside a running
 * continuation the error is thrown.
 */
export function reportSurvivedFailure(ctx: object, what: string, error: unknown): void {
  const report = survivedFailureReports.get(ctx);
  if (report === undefined) throw error;
  report(what, error);
}

/**
 * Runs one request's continuation to its end; the App's middleware wraps it once. A `cleanup`
 * that throws goes to `cleanupFailed` (logged and counted), never in place of the error that
 * ended the stream, if one did; a failure the stream survives goes to `survivedFailure`.
 */
export async function runContinuation<Shared, Params, Locals, State>(
  ctx: Context<Shared, Params, Locals>,
  exchange: Exchange,
  io: Io,
  spec: ContinuationSpec<Shared, Params, Locals, State>,
  releaseBody: () => void,
  cleanupFailed: (error: unknown) => void,
  survivedFailure: (what: string, error: unknown) => void,
): Promise<void> {
  const waiter = new Waiter();
  // A HEAD ends with its head and never waits: it takes no place in the notifier.
  const head = exchange.method === "HEAD";
  if (spec.notifier !== undefined && !head && !spec.notifier.add(waiter)) {
    throw new HttpError(503, "Service Unavailable: too many open streams", {
      headers: { "Retry-After": "1" },
    });
  }
  let state: State | undefined;
  let started = false;
  let outcome: RequestOutcome = "success";
  try {
    state = await spec.state(ctx);
    started = true;
    if (spec.noContent?.(state) === true) {
      ctx.response.setStatus(204);
      return;
    }
    const stream = ctx.response.stream(spec.status ?? 200, spec.contentType);
    if (head) {
      // The head is the answer: steps would write only what HEAD drops, and wait (holding a
      // place in the notifier) for as long as the stream may last.
      await stream.finish();
      return;
    }
    const writer = stream.writer();
    survivedFailureReports.set(ctx, survivedFailure);
    const pooled = spec.mode !== "inline";
    let reason: StepReason = "start";
    // When the stream last wrote, or its timer last woke it: the timer counts from there.
    let quietSince = io.monotonicNow();
    for (;;) {
      const resumed = reason === "notified" || reason === "timer";
      if (reason === "timer") quietSince = io.monotonicNow();
      const verdict = resumed ? await resumeVerdict(spec, ctx, state) : "step";
      if (verdict === "end") break;
      const bytesBefore = stream.bodyBytes;
      const next = verdict === "step" ? await spec.step(ctx, state, writer, reason) : "wait";
      if (next === "finish") break;
      if (next !== "wait" && next !== "flush") {
        throw new TypeError(
          `corral: a continuation step returns "flush", "wait" or "finish", got ${String(next)}`,
        );
      }
      if (verdict === "step") {
        await writer.flush();
        if (stream.bodyBytes !== bytesBefore) quietSince = io.monotonicNow();
      }
      if (next === "flush") {
        reason = "flushed";
        // A stream catching up (thousands of events to replay) would keep its worker to the end
        // while other routes wait for one: it takes its turn again instead.
        if (pooled && exchange.workerWanted && exchange.canReleaseWorker) {
          releaseBody();
          exchange.releaseWorker();
          await exchange.acquireWorker();
        }
        continue;
      }
      if (pooled) {
        releaseBody();
        exchange.releaseWorker();
      }
      const wakeAfterMs = spec.wakeAfterMs;
      reason = await waiter.wait(
        io,
        ctx.signal,
        wakeAfterMs === undefined
          ? undefined
          : Math.max(0, quietSince + wakeAfterMs - io.monotonicNow()),
      );
      if (pooled) await exchange.acquireWorker();
    }
    await stream.finish();
  } catch (error) {
    outcome = exchange.aborted ? "aborted" : "error";
    throw error;
  } finally {
    survivedFailureReports.delete(ctx);
    spec.notifier?.remove(waiter);
    if (started) {
      try {
        spec.cleanup?.(state as State, outcome);
      } catch (error) {
        cleanupFailed(error);
      }
    }
  }
}

/** Whether a resumed stream steps, ends, or (its `resume` check cannot be made now) waits. */
async function resumeVerdict<Shared, Params, Locals, State>(
  spec: ContinuationSpec<Shared, Params, Locals, State>,
  ctx: Context<Shared, Params, Locals>,
  state: State,
): Promise<"step" | "end" | "wait"> {
  if (spec.resume === undefined) return "step";
  try {
    return (await spec.resume(ctx, state)) ? "step" : "end";
  } catch (error) {
    if (error instanceof RedisUnavailableError) return "wait";
    throw error;
  }
}
