// The wire protocol between a WorkerPool and `serveJobs` in its threads. Every message is
// structured-cloned by `postMessage`: plain data, typed arrays, Maps, Dates; never functions or
// class instances (they arrive as plain objects, or fail to clone).

/**
 * Pool to worker: run `request` as job `id`. A thread holds at most one job at a time.
 *
 * @example
 * const message: JobMessage<number> = { id: 1, request: 21 };
 */
export interface JobMessage<Request> {
  readonly id: number;
  readonly request: Request;
}

/**
 * Pool to worker: the caller of job `id` gave up on it (its signal aborted); the job's `signal`
 * in the thread fires. Ignored when the thread is no longer running that job.
 *
 * @example
 * const message: CancelMessage = { cancel: 1 };
 */
export interface CancelMessage {
  readonly cancel: number;
}

/**
 * Whether `data` is a cancel message.
 *
 * @example
 * if (isCancelMessage(event.data)) controllers.get(event.data.cancel)?.abort();
 */
export function isCancelMessage(data: unknown): data is CancelMessage {
  return (
    typeof data === "object" && data !== null && typeof (data as CancelMessage).cancel === "number"
  );
}

/**
 * The error a handler threw, reduced to what survives cloning.
 *
 * @example
 * const failure: JobFailure = { name: "RangeError", message: "n must be >= 0" };
 */
export interface JobFailure {
  readonly name: string;
  readonly message: string;
}

/**
 * Worker to pool: job `id` finished, with a response or with the error its handler threw.
 *
 * @example
 * const message: ResultMessage<number> = { id: 1, response: 42 };
 */
export type ResultMessage<Response> =
  | { readonly id: number; readonly response: Response }
  | { readonly id: number; readonly error: JobFailure };

/**
 * Worker to pool, once: `serveJobs` is listening, so jobs posted from now on are received.
 *
 * @example
 * postMessage(readyMessage);
 */
export const readyMessage = Object.freeze({ ready: true } as const);

/**
 * Whether `data` is the ready message.
 *
 * @example
 * if (isReadyMessage(event.data)) markReady();
 */
export function isReadyMessage(data: unknown): boolean {
  return typeof data === "object" && data !== null && (data as { ready?: unknown }).ready === true;
}

/**
 * Whether `data` is a result message for job `id`.
 *
 * @example
 * if (isResultFor(event.data, job.id)) settle(event.data);
 */
export function isResultFor(data: unknown, id: number): data is ResultMessage<unknown> {
  if (typeof data !== "object" || data === null) return false;
  if ((data as { id?: unknown }).id !== id) return false;
  return "response" in data || "error" in data;
}

/**
 * Reduces anything thrown to a name and a message that survive cloning.
 *
 * @example
 * describeFailure(new RangeError("too big")); // { name: "RangeError", message: "too big" }
 */
export function describeFailure(thrown: unknown): JobFailure {
  if (thrown instanceof Error) return { name: thrown.name, message: thrown.message };
  return { name: "Error", message: String(thrown) };
}
