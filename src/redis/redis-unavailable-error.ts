import { HttpError } from "../http-error.ts";

/**
 * Why a Redis command did not run: too many already pending, no connection, no answer in time,
 * or Redis refused it for a while (`OOM`, `READONLY`, `MISCONF`, `LOADING`, ...).
 */
export type RedisUnavailableReason =
  | "busy"
  | "disconnected"
  | "timeout"
  | "unreachable"
  | "refused";

/**
 * A Redis command could not be answered: the connection is down, the bounded queue of pending
 * commands is full, the command timed out, or Redis refused it for a while (out of memory under
 * `noeviction`, a read-only replica, a failed snapshot, still loading). It is an `HttpError` 503
 * with `Retry-After: 1`, so a handler that lets it propagate answers 503 (RFC 9110 §15.6.4): a
 * session check fails closed and
 * nobody is taken for signed in because the store could not be asked.
 *
 * @example
 * try {
 *   await sessions.get(token);
 * } catch (error) {
 *   if (error instanceof RedisUnavailableError) console.log(error.reason); // "disconnected", say
 *   throw error; // answered 503 with Retry-After
 * }
 */
export class RedisUnavailableError extends HttpError {
  /** Which bound or fault stopped the command. */
  readonly reason: RedisUnavailableReason;

  constructor(reason: RedisUnavailableReason, detail: string) {
    super(503, `Service unavailable: the shared store is ${describe(reason)}`, {
      headers: { "Retry-After": "1" },
    });
    this.name = "RedisUnavailableError";
    this.reason = reason;
    this.cause = detail;
  }
}

function describe(reason: RedisUnavailableReason): string {
  if (reason === "busy") return "busy";
  if (reason === "timeout") return "not answering in time";
  if (reason === "refused") return "refusing commands";
  return "unreachable";
}
