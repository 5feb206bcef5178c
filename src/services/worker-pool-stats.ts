/**
 * Exact counts of a pool's threads and of what became of its jobs. Every `run` call ends in
 * exactly one of completed, failed, timedOut, aborted, rejectedBusy, rejectedClosed, or a crash
 * (`threadsReplacedAfterAbort` counts threads, not jobs).
 *
 * @example
 * const { busy, queued, rejectedBusy } = pool.stats();
 */
export interface WorkerPoolStats {
  /** Threads the pool holds now: the configured count, less any that could not be restarted. */
  readonly threads: number;
  /** Jobs a thread holds. */
  readonly busy: number;
  /** Jobs waiting for a thread. */
  readonly queued: number;
  /** Terminated threads that have not exited yet (a blocking native call delays the exit). */
  readonly retiring: number;
  /** Jobs fulfilled with a response. */
  readonly completed: number;
  /** Jobs rejected with `ServiceJobError`: the handler threw, or a message would not clone. */
  readonly failed: number;
  /** Jobs rejected with `ServiceTimeoutError`. */
  readonly timedOut: number;
  /** Threads that ended by themselves; the job each held, if any, got `ServiceCrashedError`. */
  readonly crashed: number;
  /** Jobs rejected with their signal's reason. */
  readonly aborted: number;
  /**
   * Threads terminated and replaced because an aborted job went on past `cancelGraceMs` (not a
   * job outcome: the job was counted in `aborted`).
   */
  readonly threadsReplacedAfterAbort: number;
  /** Jobs refused with `ServiceBusyError`. */
  readonly rejectedBusy: number;
  /** Jobs refused with `ServiceClosedError`. */
  readonly rejectedClosed: number;
}

/**
 * The counters of `WorkerPoolStats` that only ever grow, as opposed to the gauges.
 *
 * @example
 * const counter: JobCounter = "rejectedBusy";
 */
export type JobCounter = Exclude<keyof WorkerPoolStats, "threads" | "busy" | "queued" | "retiring">;
