// A corral App with 16 workers and a WorkerPool of 2 threads: GET /job awaits a 200 ms job with
// a plain `await pool.run(job)`, which gives the engine worker back while the job runs or waits;
// a full pool (2 running + 64 queued) is a ServiceBusyError, answered 503 with Retry-After.
// GET /ping answers "pong".
import { App, WorkerPool } from "corral";
import { abuse } from "./payloads.ts";
import { serveBenchApp } from "./serve-app.ts";
import type { SleepJob } from "./sleep-job-worker.ts";

const pool = new WorkerPool<SleepJob, string>({
  script: new URL("./sleep-job-worker.ts", import.meta.url),
  threads: abuse.poolThreads,
});
const job: SleepJob = { milliseconds: abuse.jobMilliseconds };

const app = new App({ shared: { pool }, limits: { workers: abuse.routeFloodWorkers } });
app.route("GET", abuse.jobPath, async (ctx) => {
  ctx.response.text(200, await ctx.shared.pool.run(job));
});
app.route("GET", abuse.pingPath, (ctx) => ctx.response.text(200, abuse.pingText));
serveBenchApp(app);
