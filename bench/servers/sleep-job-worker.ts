// The WorkerPool script of the pool servers: a job sleeps the given milliseconds (holding its
// thread, as a slow computation would, without using the CPU the servers are measured on).
import { serveJobs } from "corral";

/** What a pool job asks for. */
export interface SleepJob {
  readonly milliseconds: number;
}

serveJobs(async (job: SleepJob): Promise<string> => {
  await Bun.sleep(job.milliseconds);
  return `slept ${job.milliseconds} ms`;
});
