import { ResponseLimitError } from "../response-errors.ts";

/** Staged body bytes would pass `stagingBytes`: `staged` already, `adding` more. */
export function stagingOverflowError(
  staged: number,
  adding: number,
  stagingBytes: number,
): ResponseLimitError {
  return new ResponseLimitError(
    "stagingBytes",
    `${staged} staged + ${adding} more is over ${stagingBytes} bytes`,
  );
}

/**
 * A live request lacks a worker only after releaseWorker(): the handler went on while its wait
 * off the worker was pending, as when that wait loses a Promise.race.
 */
export function noWorkerError(): TypeError {
  return new TypeError(
    "corral: the response has no worker: it was given back while the handler waited, and the " +
      "handler went on before that wait ended (a Promise.race or Promise.any over it?); take " +
      "it back first: acquireWorker(), or in an App, await ctx.awaitOffWorker(the race)",
  );
}
