/**
 * The time every deadline is measured in: monotonic milliseconds less the stalls of this process.
 *
 * The sweep reads it once an interval, and connections stamp their progress with that coarse
 * value. When the process stalls (a long collection, a starved CPU, a handler that computes
 * synchronously), two things go wrong with plain wall time: the loop runs the late sweep before
 * it reads the sockets, so bytes that arrived in time still wait unread; and progress read after
 * the stall is stamped with the time of the sweep before it. Either way the server's pause would
 * be charged to its clients: a moving upload cut off with 408. So a sweep that comes late by a
 * stall (more than twice the interval and more than `shortestStallMs` after the one before)
 * excuses the time beyond one interval, and deadlines move with it. Never two sweeps in a row: a
 * process that is always late still lets time pass at least half as fast, and every deadline is
 * still enforced.
 */
export class DeadlineClock {
  /**
   * A shorter delay is the loop's ordinary jitter under load, not a stall: excusing it would
   * spend the one excuse a busy process has and leave the long stall after it charged.
   */
  static readonly shortestStallMs = 50;
  readonly #intervalMs: number;
  readonly #stallMs: number;
  readonly #wallNow: () => number;
  #lastTickAt: number;
  #excusedMs = 0;
  #excusedLastTick = false;

  constructor(intervalMs: number, wallNow: () => number = () => performance.now()) {
    this.#intervalMs = intervalMs;
    this.#stallMs = Math.max(2 * intervalMs, DeadlineClock.shortestStallMs);
    this.#wallNow = wallNow;
    this.#lastTickAt = wallNow();
  }

  /** Total milliseconds of stalls excused so far (for tests and diagnostics). */
  get excusedMs(): number {
    return this.#excusedMs;
  }

  /** The time now, for a sweep that is about to start (no stall is judged). */
  read(): number {
    const wallNow = this.#wallNow();
    this.#lastTickAt = wallNow;
    return wallNow - this.#excusedMs;
  }

  /** The sweep's time: excuses the lateness beyond one interval when this sweep comes late. */
  tick(): number {
    const wallNow = this.#wallNow();
    const gap = wallNow - this.#lastTickAt;
    this.#lastTickAt = wallNow;
    const stalled = gap > this.#stallMs && !this.#excusedLastTick;
    this.#excusedLastTick = stalled;
    if (stalled) this.#excusedMs += gap - this.#intervalMs;
    return wallNow - this.#excusedMs;
  }
}
