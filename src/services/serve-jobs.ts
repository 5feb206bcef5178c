import {
  describeFailure,
  isCancelMessage,
  type JobMessage,
  type ResultMessage,
  readyMessage,
} from "./internal/job-messages.ts";

/**
 * What a job's handler gets beside its request.
 *
 * @example
 * serveJobs(async (request: string, job: ServedJob) => render(request, { signal: job.signal }));
 */
export interface ServedJob {
  /**
   * Fires when the job's caller gave up on it (its `run` signal, or the request's through
   * `context`, aborted): a job that watches it can stop early and free its thread, which is
   * otherwise terminated and replaced after the pool's `cancelGraceMs`. The cancel arrives as a
   * message, so a job sees it only while it awaits.
   */
  readonly signal: AbortSignal;
}

let serving = false;
/** The running jobs' controllers, by job id: at most one, as a thread takes one job at a time. */
const running = new Map<number, AbortController>();

/**
 * Serves a `WorkerPool`'s jobs from inside one of its worker threads: call it once, at the top of
 * the worker script. Each job's request is given to `handler` with a `ServedJob` (its `signal`
 * fires when the caller gives up), and what it returns (or resolves to) becomes the job's
 * response. A handler that throws fails only that job, with a
 * `ServiceJobError` carrying the error's name and message; the thread lives on. Requests and
 * responses are structured-cloned, so they are plain data: no functions, no class instances.
 *
 * The thread takes one job at a time. Until this is called the pool sends the thread nothing, so
 * the script may `await` its own set-up (loading a model, opening a file) before calling it.
 *
 * @example
 * // hash-worker.ts, run with new WorkerPool({ script: new URL("./hash-worker.ts", import.meta.url), ... })
 * import { serveJobs } from "corral";
 *
 * serveJobs((text: string) => Bun.hash(text).toString(16));
 */
export function serveJobs<Request, Response>(
  handler: (request: Request, job: ServedJob) => Response | Promise<Response>,
): void {
  if (Bun.isMainThread) {
    throw new TypeError("corral: serveJobs runs inside a worker script, not on the main thread");
  }
  if (serving) throw new TypeError("corral: serveJobs was already called in this worker");
  serving = true;
  addEventListener("message", (event: MessageEvent<unknown>) => {
    const data = event.data;
    if (isCancelMessage(data)) running.get(data.cancel)?.abort(new Error("the job was cancelled"));
    else void runJob(handler, data as JobMessage<Request>);
  });
  postMessage(readyMessage);
}

async function runJob<Request, Response>(
  handler: (request: Request, job: ServedJob) => Response | Promise<Response>,
  { id, request }: JobMessage<Request>,
): Promise<void> {
  const controller = new AbortController();
  running.set(id, controller);
  let result: ResultMessage<Response>;
  try {
    result = { id, response: await handler(request, { signal: controller.signal }) };
  } catch (thrown) {
    result = { id, error: describeFailure(thrown) };
  } finally {
    running.delete(id);
  }
  try {
    postMessage(result);
  } catch (thrown) {
    // The response could not be cloned (a function, a class with private state): fail the job,
    // not the thread.
    postMessage({ id, error: describeFailure(thrown) } satisfies ResultMessage<Response>);
  }
}
