import type { Io, IoTimer } from "../../io.ts";

/**
 * One accepted job, from `run` until it settles: its promise, its abort listener and, once a
 * thread takes it, its time limit. Settling is once only and releases both the timer and the
 * listener, so a settled job holds nothing of the caller's.
 *
 * @example
 * const job = new PendingJob(1, request, 5_000, signal, (aborted) => pool.abort(aborted));
 * job.startTimer(systemIo, (late) => pool.expire(late));
 * job.resolve(response);
 */
export class PendingJob<Request, Response> {
  readonly id: number;
  readonly request: Request;
  readonly timeoutMs: number;
  readonly promise: Promise<Response>;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort: () => void;
  readonly #resolve: (response: Response) => void;
  readonly #reject: (reason: unknown) => void;
  #timer: IoTimer | undefined;
  #settled = false;

  constructor(
    id: number,
    request: Request,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    onAbort: (job: PendingJob<Request, Response>) => void,
  ) {
    this.id = id;
    this.request = request;
    this.timeoutMs = timeoutMs;
    const { promise, resolve, reject } = Promise.withResolvers<Response>();
    this.promise = promise;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    this.#onAbort = () => onAbort(this);
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** The caller's abort reason, for rejecting an aborted job with it. */
  get abortReason(): unknown {
    return this.#signal?.reason;
  }

  /** Starts the time limit; it runs from the moment a thread takes the job. */
  startTimer(io: Io, onTimeout: (job: PendingJob<Request, Response>) => void): void {
    this.#timer = io.setTimer(this.timeoutMs, () => onTimeout(this));
  }

  /** Fulfils the job; false if it had already settled. */
  resolve(response: Response): boolean {
    if (!this.#release()) return false;
    this.#resolve(response);
    return true;
  }

  /** Rejects the job; false if it had already settled. */
  reject(reason: unknown): boolean {
    if (!this.#release()) return false;
    this.#reject(reason);
    return true;
  }

  /**
   * Rejects the job as `reject` does while its thread may still be running it: `onGraceEnd` is
   * called after `graceMs` unless `stopTimer` comes first. False if it had already settled.
   */
  abandon(
    reason: unknown,
    io: Io,
    graceMs: number,
    onGraceEnd: (job: PendingJob<Request, Response>) => void,
  ): boolean {
    if (!this.reject(reason)) return false;
    this.#timer = io.setTimer(graceMs, () => onGraceEnd(this));
    return true;
  }

  /** The thread is done with the job: the time limit, or an abandoned job's grace, stops. */
  stopTimer(): void {
    this.#timer?.cancel();
  }

  #release(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#timer?.cancel();
    this.#signal?.removeEventListener("abort", this.#onAbort);
    return true;
  }
}
