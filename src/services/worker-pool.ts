import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import { awaitOffWorkerUnseen } from "../waiting/off-worker.ts";
import { currentExchange, enableRequestScope } from "../waiting/request-scope.ts";
import type { ResultMessage } from "./internal/job-messages.ts";
import { PendingJob } from "./internal/pending-job.ts";
import { type SlotEvents, WorkerSlot } from "./internal/worker-slot.ts";
import {
  ServiceBusyError,
  ServiceClosedError,
  ServiceCrashedError,
  ServiceJobError,
  ServiceTimeoutError,
} from "./service-errors.ts";
import {
  checkTimeoutMs,
  type ResolvedWorkerPoolOptions,
  type RunOptions,
  resolveWorkerPoolOptions,
  type WorkerPoolOptions,
} from "./worker-pool-options.ts";
import type { JobCounter, WorkerPoolStats } from "./worker-pool-stats.ts";

const workerPoolOptionNames = optionNames<WorkerPoolOptions>({
  script: true,
  threads: true,
  maxQueuedJobs: true,
  jobTimeoutMs: true,
  cancelGraceMs: true,
  io: true,
  name: true,
});

const runOptionNames = optionNames<RunOptions>({
  context: true,
  signal: true,
  timeoutMs: true,
});

/**
 * A fixed set of worker threads that run blocking or CPU-heavy jobs off the event loop, so the
 * HTTP loop keeps serving while a handler awaits one. All threads start at construction. A job
 * goes to a free thread or waits in a bounded queue; when both are taken it is refused at once
 * with `ServiceBusyError`. A job that runs past its time limit is rejected with
 * `ServiceTimeoutError` and its thread is terminated and replaced, so a stuck job never keeps
 * its thread. A thread that dies (uncaught error, `process.exit`) is replaced and its job
 * rejected with `ServiceCrashedError`. A thread that dies before calling `serveJobs` is
 * restarted only when a job needs it, so a broken script fails each job instead of looping.
 * A job's time limit counts from when a thread takes it (including that thread's start-up), not
 * its wait in the queue; a caller's `signal` bounds the wait as well.
 *
 * Called from a request handler, an accepted job is awaited with the request's engine worker
 * given back whenever the handler cannot tell (nothing drafted but headers, and no request body
 * stored in the worker), and taken back fairly before the handler goes on: a flood of jobs fills
 * the pool's bound (and is refused past it, answered 503) instead of taking every engine worker
 * from unrelated routes. `{ context: ctx }` gives the worker back in every case it can (the
 * request body goes with it) and lets the request's signal abort the job.
 *
 * Requests and responses are structured-cloned (copied; no functions, no class instances;
 * buffers are copied, not transferred). Threads do not isolate arbitrary code: a thread stuck in
 * a blocking native call exits only when that call returns.
 *
 * @example
 * // main.ts; hash-worker.ts calls serveJobs((text: string) => Bun.hash(text).toString(16))
 * await using pool = new WorkerPool<string, string>({
 *   script: new URL("./hash-worker.ts", import.meta.url),
 *   threads: 2,
 *   maxQueuedJobs: 32,
 *   jobTimeoutMs: 1_000,
 * });
 * const digest = await pool.run("hello");
 */
export class WorkerPool<Request, Response> implements AsyncDisposable {
  readonly #options: ResolvedWorkerPoolOptions;
  readonly #slots: readonly WorkerSlot[];
  // A Set keeps arrival order and deletes an aborted job from the middle in O(1).
  readonly #queue = new Set<PendingJob<Request, Response>>();
  // Every thread started and not yet exited, by its exit promise; retired ones included.
  readonly #threads = new Set<Promise<void>>();
  readonly #counts: Record<JobCounter, number> = {
    completed: 0,
    failed: 0,
    timedOut: 0,
    crashed: 0,
    aborted: 0,
    threadsReplacedAfterAbort: 0,
    rejectedBusy: 0,
    rejectedClosed: 0,
  };
  #nextId = 1;
  #closing: Promise<void> | undefined;
  #onDrained: (() => void) | undefined;
  #terminated = false;

  constructor(options: WorkerPoolOptions) {
    refuseUnknownOptions(options, workerPoolOptionNames, "new WorkerPool()");
    this.#options = resolveWorkerPoolOptions(options);
    enableRequestScope();
    const events: SlotEvents = {
      ready: () => this.#pump(),
      result: (slot, message) => this.#finish(slot, message),
      ended: (slot, job, detail, exitCode) => {
        this.#counts.crashed++;
        job?.stopTimer();
        job?.reject(new ServiceCrashedError(detail, exitCode));
        if (!slot.failedToStart && this.#closing === undefined) this.#start(slot);
        this.#pump();
      },
    };
    this.#slots = Array.from({ length: this.#options.threads }, () => {
      const slot = new WorkerSlot(this.#options, events);
      this.#start(slot);
      return slot;
    });
  }

  /**
   * Runs `request` on a thread and resolves with its handler's response. Rejects with
   * `ServiceBusyError` at once when every thread is busy and the queue is full, with
   * `ServiceClosedError` after `close()`, with `ServiceTimeoutError`, `ServiceCrashedError` or
   * `ServiceJobError` as the job goes, or with the signal's reason when it is aborted. A
   * `timeoutMs` above the pool's `jobTimeoutMs` is a `RangeError`, thrown at the call. Called in
   * a request (with its `context`, or from its handler without one), the request's signal aborts
   * the job too (a client that leaves withdraws it) unless `signal: null` detaches it, and while
   * the handler awaits an accepted job the engine worker is given back (see `RunOptions`); if the
   * client leaves meanwhile it rejects with `ClientGoneError`. Raced against another promise
   * (`Promise.race`, `Promise.any`), the job may lose while its worker is away: wrap the race in
   * `ctx.awaitOffWorker(...)` so the handler goes on with a worker.
   *
   * @example
   * const thumbnail = await pool.run({ path, width: 320 }, { context: ctx, timeoutMs: 2_000 });
   */
  run(request: Request, options: RunOptions = {}): Promise<Response> {
    refuseUnknownOptions(options, runOptionNames, "pool.run()");
    const { jobTimeoutMs, maxQueuedJobs } = this.#options;
    const { context } = options;
    const timeoutMs =
      options.timeoutMs === undefined
        ? jobTimeoutMs
        : checkTimeoutMs("timeoutMs", options.timeoutMs, jobTimeoutMs);
    if (options.signal === null && context !== undefined) {
      throw new TypeError("corral: pool.run with a context cannot detach its job (signal: null)");
    }
    const exchange = context === undefined ? currentExchange() : undefined;
    const signal =
      options.signal === null
        ? undefined
        : jobSignal(options.signal, (context ?? exchange)?.signal);
    if (this.#closing !== undefined)
      return this.#refuse("rejectedClosed", new ServiceClosedError());
    if (signal?.aborted) return this.#refuse("aborted", signal.reason);
    const slot = this.#takeSlot();
    if (slot === undefined && this.#queue.size >= maxQueuedJobs) {
      return this.#refuse("rejectedBusy", new ServiceBusyError(maxQueuedJobs));
    }
    const job = new PendingJob<Request, Response>(
      this.#nextId++,
      request,
      timeoutMs,
      signal,
      (aborted) => this.#abort(aborted),
    );
    if (slot === undefined) this.#queue.add(job);
    else this.#assign(slot, job);
    // Only an accepted job gives the engine worker back: a refusal is answered at once with it.
    if (context !== undefined) return context.awaitOffWorker(job.promise);
    return exchange === undefined ? job.promise : awaitOffWorkerUnseen(exchange, job.promise);
  }

  /**
   * Exact counters, taken now.
   *
   * @example
   * expect(pool.stats().threads).toBe(4);
   */
  stats(): WorkerPoolStats {
    const threads = this.#slots.filter((slot) => slot.live).length;
    return {
      threads,
      busy: this.#slots.filter((slot) => slot.job !== undefined).length,
      queued: this.#queue.size,
      retiring: this.#threads.size - threads,
      ...this.#counts,
    };
  }

  /**
   * Stops taking jobs (new ones reject with `ServiceClosedError`), lets the queued and running
   * ones finish, then terminates the threads and resolves once every thread has exited. Time
   * limits still apply while draining, so it takes at most about
   * `(queued / threads + 1) * jobTimeoutMs`. Calling it again returns the same promise.
   *
   * @example
   * process.on("SIGTERM", () => void pool.close());
   */
  close(): Promise<void> {
    this.#closing ??= this.#drainThenStop();
    return this.#closing;
  }

  /**
   * `close()`, for `await using`.
   *
   * @example
   * await using pool = new WorkerPool<number, number>({ script, threads: 1 });
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #drainThenStop(): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#onDrained = resolve;
    this.#checkDrained();
    await promise;
    this.#terminated = true;
    for (const slot of this.#slots) slot.retire();
    await Promise.all(this.#threads);
  }

  #checkDrained(): void {
    if (this.#onDrained === undefined || this.#queue.size > 0) return;
    if (this.#slots.some((slot) => slot.job !== undefined)) return;
    this.#onDrained();
    this.#onDrained = undefined;
  }

  #refuse(counter: JobCounter, reason: unknown): Promise<never> {
    this.#counts[counter]++;
    return Promise.reject(reason);
  }

  // A ready thread first; then one still starting, which takes the job when it is ready; then a
  // down slot started for this job.
  #takeSlot(): WorkerSlot | undefined {
    let starting: WorkerSlot | undefined;
    for (const slot of this.#slots) {
      if (!slot.free) continue;
      if (slot.ready) return slot;
      starting ??= slot;
    }
    if (starting !== undefined) return starting;
    return this.#slots.find((slot) => !slot.live && this.#start(slot));
  }

  // At most `threads` terminated threads may linger (stuck in native code) before replacements
  // wait for them to exit: the thread count stays bounded at twice the configured one.
  #start(slot: WorkerSlot): boolean {
    if (this.#terminated || this.#threads.size >= 2 * this.#options.threads) return false;
    const exited = slot.start();
    this.#threads.add(exited);
    void exited.then(() => {
      this.#threads.delete(exited);
      // A slot left down while too many retired threads lingered gets its thread back now,
      // not only when a job comes for it (the pool keeps `threads` threads running).
      if (this.#closing === undefined) {
        for (const down of this.#slots) if (!down.live && !down.failedToStart) this.#start(down);
      }
      this.#pump();
    });
    return true;
  }

  #assign(slot: WorkerSlot, job: PendingJob<Request, Response>): void {
    job.startTimer(this.#options.io, (late) => {
      if (slot.job !== late || !late.reject(new ServiceTimeoutError(late.timeoutMs))) return;
      this.#counts.timedOut++;
      this.#replace(slot);
    });
    slot.assign(job);
  }

  #pump(): void {
    for (const job of this.#queue) {
      const slot = this.#takeSlot();
      if (slot === undefined) break;
      this.#queue.delete(job);
      this.#assign(slot, job);
    }
    this.#checkDrained();
  }

  #finish(slot: WorkerSlot, message: ResultMessage<unknown>): void {
    const job = slot.job;
    slot.release();
    job?.stopTimer();
    // An aborted job's result is dropped: the job was counted when its caller gave up.
    if ("error" in message) {
      const error = new ServiceJobError(String(message.error.name), String(message.error.message));
      if (job?.reject(error)) this.#counts.failed++;
    } else if (job?.resolve(message.response as Response)) {
      this.#counts.completed++;
    }
    this.#pump();
  }

  #abort(job: PendingJob<Request, Response>): void {
    const slot = this.#slots.find((candidate) => candidate.job === job);
    const graceMs = Math.min(this.#options.cancelGraceMs, job.timeoutMs);
    if (slot?.ready && graceMs > 0) {
      // The thread is told and keeps its job until it ends or the grace is over: a new thread
      // costs milliseconds of CPU, which a client leaving mid-job must not make the server pay.
      if (!job.abandon(job.abortReason, this.#options.io, graceMs, (late) => this.#overran(late))) {
        return;
      }
      slot.cancel();
    } else {
      if (!job.reject(job.abortReason)) return;
      if (slot === undefined) {
        this.#queue.delete(job);
      } else if (slot.ready) {
        this.#replace(slot);
      } else {
        // Never sent to its thread, which is still starting: that thread takes another job.
        slot.release();
        this.#pump();
      }
    }
    this.#counts.aborted++;
    this.#checkDrained();
  }

  /** An aborted job still runs after its grace: its thread is terminated and replaced. */
  #overran(job: PendingJob<Request, Response>): void {
    const slot = this.#slots.find((candidate) => candidate.job === job);
    if (slot === undefined) return;
    this.#counts.threadsReplacedAfterAbort++;
    this.#replace(slot);
  }

  // A thread whose job was given up on may still be running it: terminate it, start another.
  #replace(slot: WorkerSlot): void {
    slot.retire();
    if (this.#closing === undefined) this.#start(slot);
    this.#pump();
  }
}

function jobSignal(
  signal: AbortSignal | undefined,
  requestSignal: AbortSignal | undefined,
): AbortSignal | undefined {
  if (signal === undefined) return requestSignal;
  if (requestSignal === undefined) return signal;
  return AbortSignal.any([signal, requestSignal]);
}
