/**
 * Why a worker service refused or lost a job. The set is closed: every rejection a `WorkerPool`
 * makes is one of these five, or the reason of the caller's own `AbortSignal`.
 *
 * @example
 * const code: ServiceErrorCode = "busy";
 */
export type ServiceErrorCode = "busy" | "timeout" | "crashed" | "job" | "closed";

/**
 * The base of the worker service errors. Switch on `code` to map them exhaustively, e.g. `busy`
 * to 503 with `Retry-After`.
 *
 * @example
 * try {
 *   await pool.run(request);
 * } catch (error) {
 *   if (error instanceof ServiceError && error.code === "busy") throw new HttpError(503, "busy");
 *   throw error;
 * }
 */
export abstract class ServiceError extends Error {
  /** Which of the closed set of service failures this is. */
  abstract readonly code: ServiceErrorCode;
}

/**
 * Every thread was busy and the job queue was full, so the job was refused at once, unrun.
 *
 * @example
 * if (error instanceof ServiceBusyError) throw new HttpError(503, "try again", { headers: { "Retry-After": "1" } });
 */
export class ServiceBusyError extends ServiceError {
  readonly code = "busy";
  /** The App answers it with this status (see `StatusError`). */
  readonly httpStatus = 503;
  readonly httpMessage = "Service Unavailable: busy, retry later";
  readonly httpHeaders: Readonly<Record<string, string>> = { "Retry-After": "1" };
  /** The queue bound that was reached. */
  readonly maxQueuedJobs: number;

  constructor(maxQueuedJobs: number) {
    super(`corral: every worker thread is busy and the queue of ${maxQueuedJobs} jobs is full`);
    this.name = "ServiceBusyError";
    this.maxQueuedJobs = maxQueuedJobs;
  }
}

/**
 * The job ran longer than its time limit. Its thread was terminated and replaced.
 *
 * @example
 * if (error instanceof ServiceTimeoutError) console.warn(`gave up after ${error.timeoutMs} ms`);
 */
export class ServiceTimeoutError extends ServiceError {
  /** The App answers it with this status (see `StatusError`). */
  readonly httpStatus = 503;
  readonly httpMessage = "Service Unavailable: the job took too long";
  readonly code = "timeout";
  /** The limit the job exceeded. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`corral: the worker job did not finish within ${timeoutMs} ms`);
    this.name = "ServiceTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The thread running the job ended under it: an uncaught error or rejection in the worker,
 * `process.exit` there, or a message outside the job protocol. The thread was replaced.
 *
 * @example
 * if (error instanceof ServiceCrashedError) console.error(error.detail, error.exitCode);
 */
export class ServiceCrashedError extends ServiceError {
  readonly code = "crashed";
  /** The thread's exit code when it exited by itself; `undefined` when it failed with an error. */
  readonly exitCode: number | undefined;
  /** What the worker reported: its uncaught error's text, or how it exited. */
  readonly detail: string;

  constructor(detail: string, exitCode: number | undefined) {
    super(`corral: the worker thread running the job ended: ${firstLine(detail)}`);
    this.name = "ServiceCrashedError";
    this.detail = detail;
    this.exitCode = exitCode;
  }
}

/**
 * The job's handler threw (or its request or response could not be structured-cloned). The
 * worker thread survives; `errorName` and `message` are the thrown error's.
 *
 * @example
 * if (error instanceof ServiceJobError && error.errorName === "RangeError") return badInput();
 */
export class ServiceJobError extends ServiceError {
  readonly code = "job";
  /** The `name` of the error the handler threw, e.g. `"TypeError"`. */
  readonly errorName: string;

  constructor(errorName: string, message: string) {
    super(message);
    this.name = "ServiceJobError";
    this.errorName = errorName;
  }
}

/**
 * The pool was closed (or is closing) when the job was offered, so it was refused unrun.
 *
 * @example
 * if (error instanceof ServiceClosedError) return; // shutting down
 */
export class ServiceClosedError extends ServiceError {
  readonly code = "closed";
  /** The App answers it with this status (see `StatusError`). */
  readonly httpStatus = 503;
  readonly httpMessage = "Service Unavailable: shutting down";

  constructor() {
    super("corral: the worker pool is closed and takes no new jobs");
    this.name = "ServiceClosedError";
  }
}

// A worker's uncaught-error text starts with a source excerpt and ends with the stack; the line
// that names the error is the useful one for a one-line message, the whole text stays in `detail`.
function firstLine(detail: string): string {
  const lines = detail.split("\n").map((line) => line.trim());
  return lines.find((line) => /^[A-Za-z]*error:/i.test(line)) ?? lines[0] ?? detail;
}
