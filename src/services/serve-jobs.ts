import {
  describeFailure,
  type JobMessage,
  type ResultMessage,
  readyMessage,
} from "./internal/job-messages.ts";

let serving = false;

/**
 * Serves a `WorkerPool`'s jobs from inside one of its worker threads: call it once, at the top of
 * the worker script. Each job's request is given to `handler`, and what it returns (or resolves
 * to) becomes the job's response. A handler that throws fails only that job, with a
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
  handler: (request: Request) => Response | Promise<Response>,
): void {
  if (Bun.isMainThread) {
    throw new TypeError("corral: serveJobs runs inside a worker script, not on the main thread");
  }
  if (serving) throw new TypeError("corral: serveJobs was already called in this worker");
  serving = true;
  addEventListener("message", (event: MessageEvent<JobMessage<Request>>) => {
    void runJob(handler, event.data);
  });
  postMessage(readyMessage);
}

async function runJob<Request, Response>(
  handler: (request: Request) => Response | Promise<Response>,
  { id, request }: JobMessage<Request>,
): Promise<void> {
  let result: ResultMessage<Response>;
  try {
    result = { id, response: await handler(request) };
  } catch (thrown) {
    result = { id, error: describeFailure(thrown) };
  }
  try {
    postMessage(result);
  } catch (thrown) {
    // The response could not be cloned (a function, a class with private state): fail the job,
    // not the thread.
    postMessage({ id, error: describeFailure(thrown) } satisfies ResultMessage<Response>);
  }
}
