// `bun run example sse-jobs --port <port> [--processes <n>] [--redis redis://host:port]`: job
// progress as server-sent events, 200 ms per 10%; with --redis, every instance on that Redis
// shares sessions, jobs and their progress events.
import { openRedisOrExit, prepareRedisArgument } from "../shared/redis-argument.ts";
import { serveExample } from "../shared/serve-example.ts";
import { createRedisSseJobsApp } from "./redis-sse-jobs-app.ts";
import { createSseJobsApp } from "./sse-jobs-app.ts";

/** Where the main process leaves `--redis` for the processes of `--processes N` (inherited). */
const redisUrlVariable = "CORRAL_SSE_JOBS_EXAMPLE_REDIS";

/** Makes the App; each process of `--processes N` makes its own, on the same Redis if any. */
async function createApp() {
  const redisUrl = process.env[redisUrlVariable];
  if (redisUrl === undefined) return createSseJobsApp({ stepMs: 200 });
  return createRedisSseJobsApp(await openRedisOrExit("sse-jobs", redisUrl), redisUrl);
}
export default createApp;

/**
 * Takes `--redis URL` out of the command line and leaves it where `createApp` finds it; returns
 * the rest for `serveExample`. A bad option is one line and exit status 2.
 */
export function prepare(args: readonly string[]): readonly string[] {
  return prepareRedisArgument(args, "sse-jobs", redisUrlVariable);
}

if (import.meta.main) {
  await serveExample("sse-jobs", import.meta.path, createApp, prepare(process.argv.slice(2)));
}
