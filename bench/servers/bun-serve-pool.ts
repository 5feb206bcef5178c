// Bun.serve with the same WorkerPool (2 threads, 64 queued jobs) awaited in its fetch handler:
// GET /job answers the job's result, or 503 with Retry-After when the pool is full; anything
// else answers "pong".
import { ServiceBusyError, WorkerPool } from "corral";
import { abuse } from "./payloads.ts";
import { textHeaders as headers, serveFetch } from "./serve-fetch.ts";
import type { SleepJob } from "./sleep-job-worker.ts";

const pool = new WorkerPool<SleepJob, string>({
  script: new URL("./sleep-job-worker.ts", import.meta.url),
  threads: abuse.poolThreads,
});
const job: SleepJob = { milliseconds: abuse.jobMilliseconds };

serveFetch(async (request) => {
  if (new URL(request.url).pathname !== abuse.jobPath) {
    return new Response(abuse.pingText, { headers });
  }
  try {
    return new Response(await pool.run(job), { headers });
  } catch (error) {
    if (!(error instanceof ServiceBusyError)) throw error;
    return new Response("busy, retry later", {
      status: 503,
      headers: { ...headers, "Retry-After": "1" },
    });
  }
});
