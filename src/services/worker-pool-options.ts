import { type Io, systemIo } from "../io.ts";

/**
 * How a `WorkerPool` is built. Everything it may hold is bounded by these numbers: `threads`
 * threads, `maxQueuedJobs` waiting jobs, and no job running longer than `jobTimeoutMs`.
 *
 * @example
 * const options: WorkerPoolOptions = {
 *   script: new URL("./resize-worker.ts", import.meta.url),
 *   threads: 4,
 *   maxQueuedJobs: 64,
 *   jobTimeoutMs: 5_000,
 * };
 */
export interface WorkerPoolOptions {
  /**
   * The module each thread runs; it calls `serveJobs`. Prefer a `URL` made from
   * `import.meta.url`: Bun resolves a relative string from the project root, not from the caller.
   */
  readonly script: URL | string;
  /** The fixed number of threads, 1-256, all started at construction. */
  readonly threads: number;
  /** Jobs that may wait for a thread, 0-1048576; one more is refused with `ServiceBusyError`. */
  readonly maxQueuedJobs?: number;
  /** The longest a job may hold its thread, in ms (default 30 s); `run` may only shorten it. */
  readonly jobTimeoutMs?: number;
  /**
   * How long a running job whose caller gave up may go on, in ms (default 1 s, at most its time
   * limit): its `signal` fires in the thread, and a job still running after this has its thread
   * terminated and replaced. 0 terminates it at once. Starting a thread costs milliseconds of
   * CPU, so without a grace every client that left mid-job made the server pay for one.
   */
  readonly cancelGraceMs?: number;
  /** The timers for job time limits; `systemIo` unless a test passes a `ManualIo`. */
  readonly io?: Io;
  /** The threads' name, shown by debuggers and profilers. */
  readonly name?: string;
}

/**
 * What `run` uses of a handler's `ctx` (an App `Context` is one): its signal, and a way to wait
 * without holding an engine worker.
 *
 * @example
 * const caller: RunContext = ctx;
 */
export interface RunContext {
  readonly signal: AbortSignal;
  awaitOffWorker<T>(pending: Promise<T>): Promise<T>;
}

/**
 * A job's own options.
 *
 * @example
 * await pool.run(request, { context: ctx, timeoutMs: 2_000 });
 */
export interface RunOptions {
  /**
   * The handler's `ctx`, when a request handler runs the job: an accepted job is awaited without
   * holding an engine worker (see `Context.awaitOffWorker`), and the request's signal aborts it.
   */
  readonly context?: RunContext;
  /**
   * Aborting removes a queued job, or cancels a running one (see `cancelGraceMs`). Called in a
   * request (with a `context`, or from its handler without one), the request's signal aborts the
   * job too: a client that leaves withdraws its job. `null` detaches a job started in a request
   * from it (a task that must finish even when the client leaves; it cannot go with a
   * `context`, a `TypeError`).
   */
  readonly signal?: AbortSignal | null;
  /** A shorter time limit than the pool's `jobTimeoutMs` for this job. */
  readonly timeoutMs?: number;
}

/**
 * The limits a `WorkerPool` uses when its options leave them out.
 *
 * @example
 * new WorkerPool({ script, threads: 2, maxQueuedJobs: defaultWorkerPoolLimits.maxQueuedJobs * 2 });
 */
export const defaultWorkerPoolLimits = Object.freeze({
  maxQueuedJobs: 64,
  jobTimeoutMs: 30_000,
  cancelGraceMs: 1_000,
});

/**
 * Options with every default filled in, checked.
 *
 * @example
 * const resolved: ResolvedWorkerPoolOptions = resolveWorkerPoolOptions({ script, threads: 2 });
 */
export interface ResolvedWorkerPoolOptions {
  readonly script: URL | string;
  readonly threads: number;
  readonly maxQueuedJobs: number;
  readonly jobTimeoutMs: number;
  readonly cancelGraceMs: number;
  readonly io: Io;
  readonly name: string;
}

const maxThreads = 256;
const maxQueueLength = 1_048_576;
// setTimeout fires at once for delays above a signed 32-bit millisecond count.
const maxTimeoutMs = 2_147_483_647;

/**
 * Checks `options` and fills in the defaults; a number out of range is a `RangeError`, a missing
 * script a `TypeError`, both thrown at construction.
 *
 * @example
 * resolveWorkerPoolOptions({ script, threads: 0 }); // throws RangeError
 */
export function resolveWorkerPoolOptions(options: WorkerPoolOptions): ResolvedWorkerPoolOptions {
  const { script } = options;
  if (!(script instanceof URL) && (typeof script !== "string" || script === "")) {
    throw new TypeError("corral: WorkerPool script must be a URL or a non-empty module path");
  }
  return {
    script,
    threads: checkInteger("threads", options.threads, 1, maxThreads),
    maxQueuedJobs: checkInteger(
      "maxQueuedJobs",
      options.maxQueuedJobs ?? defaultWorkerPoolLimits.maxQueuedJobs,
      0,
      maxQueueLength,
    ),
    jobTimeoutMs: checkTimeoutMs(
      "jobTimeoutMs",
      options.jobTimeoutMs ?? defaultWorkerPoolLimits.jobTimeoutMs,
      maxTimeoutMs,
    ),
    cancelGraceMs: checkInteger(
      "cancelGraceMs",
      options.cancelGraceMs ?? defaultWorkerPoolLimits.cancelGraceMs,
      0,
      maxTimeoutMs,
    ),
    io: options.io ?? systemIo,
    name: options.name ?? "corral-worker",
  };
}

/**
 * Checks a job's own time limit: more than 0 and at most the pool's `jobTimeoutMs`.
 *
 * @example
 * checkTimeoutMs("timeoutMs", 500, 30_000); // 500
 */
export function checkTimeoutMs(name: string, value: number, maximum: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > maximum) {
    throw new RangeError(
      `corral: WorkerPool ${name} must be > 0 and <= ${maximum} ms, got ${value}`,
    );
  }
  return value;
}

function checkInteger(name: string, value: number, minimum: number, maximum: number): number {
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new RangeError(
      `corral: WorkerPool ${name} must be an integer ${minimum}-${maximum}, got ${value}`,
    );
  }
  return value;
}
