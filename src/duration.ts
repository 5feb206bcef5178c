/**
 * A length of time, made explicitly from a unit so that a bare number is never ambiguous.
 *
 * @example
 * await ctx.sleep(Duration.fromMilliseconds(500));
 */
export class Duration {
  /** The length in milliseconds. */
  readonly milliseconds: number;

  private constructor(milliseconds: number) {
    if (!Number.isFinite(milliseconds) || milliseconds < 0) {
      throw new RangeError(`corral: a duration must be a finite number >= 0, got ${milliseconds}`);
    }
    this.milliseconds = milliseconds;
  }

  /** A duration of `milliseconds` ms. */
  static fromMilliseconds(milliseconds: number): Duration {
    return new Duration(milliseconds);
  }

  /** A duration of `seconds` s. */
  static fromSeconds(seconds: number): Duration {
    return new Duration(seconds * 1000);
  }
}

/** Milliseconds of a `Duration` or of a plain number of milliseconds. */
export function toMilliseconds(duration: Duration | number): number {
  if (typeof duration === "number") return Duration.fromMilliseconds(duration).milliseconds;
  // "1s" or { seconds: 1 } had no milliseconds, and the wait was a timer of undefined: none.
  if (!(duration instanceof Duration)) {
    const what =
      typeof duration === "string" ? `the string ${JSON.stringify(duration)}` : String(duration);
    throw new TypeError(
      `corral: a duration is a Duration (Duration.fromSeconds(1)) or a number of milliseconds, got ${what}`,
    );
  }
  return duration.milliseconds;
}
