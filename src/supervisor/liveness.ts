/**
 * The supervisor pings each process over IPC this often (ms) by default. A ping costs the process
 * one small message a second, and an event loop that is merely busy answers it between tasks.
 */
export const defaultLivenessIntervalMs = 1000;
/**
 * A process that leaves a ping unanswered this long (ms) by default is hung: it is killed and
 * restarted. Five seconds is far above a garbage collection or a slow synchronous handler (which
 * keeps serving after it), and bounds the harm of a stuck process: while it is stuck the kernel
 * still hands it 1/N of the new connections (reusePort), which wait until it is killed.
 */
export const defaultLivenessDeadlineMs = 5000;

/**
 * A process that has not said it listens this long (ms) after it was started, by default, is
 * stuck starting (a top-level await that never settles, a connection without a timeout): it is
 * killed and, once the group runs, restarted. Generous, for Apps that load or migrate data first.
 */
export const defaultStartDeadlineMs = 30_000;

/** How the supervisor tells a hung process from a busy one, and a stuck start from a slow one. */
export interface LivenessSettings {
  /** Milliseconds between two pings to each process. */
  readonly intervalMs: number;
  /** Milliseconds a ping may go unanswered before the process is killed as hung. */
  readonly deadlineMs: number;
  /** Milliseconds a process may take from its start to listening before it is killed. */
  readonly startDeadlineMs: number;
}

/**
 * Validates `livenessIntervalMs` (10 ms to 1 min), `livenessDeadlineMs` (at least two
 * intervals, at most 1 h) and `startDeadlineMs` (100 ms to 1 h) of `serve()`, with the defaults
 * for those not given.
 */
export function livenessSettings(options: {
  readonly livenessIntervalMs?: number;
  readonly livenessDeadlineMs?: number;
  readonly startDeadlineMs?: number;
}): LivenessSettings {
  const intervalMs = options.livenessIntervalMs ?? defaultLivenessIntervalMs;
  const deadlineMs = options.livenessDeadlineMs ?? defaultLivenessDeadlineMs;
  const startDeadlineMs = options.startDeadlineMs ?? defaultStartDeadlineMs;
  if (!Number.isInteger(intervalMs) || intervalMs < 10 || intervalMs > 60_000) {
    throw new RangeError(
      `corral: livenessIntervalMs must be an integer from 10 to 60000, got ${intervalMs}`,
    );
  }
  if (!Number.isInteger(deadlineMs) || deadlineMs < 2 * intervalMs || deadlineMs > 3_600_000) {
    throw new RangeError(
      `corral: livenessDeadlineMs must be an integer from twice livenessIntervalMs ` +
        `(${2 * intervalMs}) to 3600000, got ${deadlineMs}`,
    );
  }
  if (!Number.isInteger(startDeadlineMs) || startDeadlineMs < 100 || startDeadlineMs > 3_600_000) {
    throw new RangeError(
      `corral: startDeadlineMs must be an integer from 100 to 3600000, got ${startDeadlineMs}`,
    );
  }
  return { intervalMs, deadlineMs, startDeadlineMs };
}

/**
 * How many pings in a row a process leaves unanswered when it is hung: the oldest of them was
 * sent this many intervals ago, at least the deadline. Counted in the supervisor's own ticks, so a stall of the
 * supervisor (which sends no pings meanwhile) never makes a process look hung.
 */
export function missedPingsWhenHung(settings: LivenessSettings): number {
  return Math.ceil(settings.deadlineMs / settings.intervalMs);
}
