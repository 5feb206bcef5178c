// `bun run example sessions --port <port> [--processes <n>] [--redis redis://host:port]`: login,
// a protected page and logout with sessions; with --redis, every instance on that Redis shares
// them (and so do the processes of --processes N).
import { RedisSessionStore, systemIo } from "corral";
import { openRedisOrExit, prepareRedisArgument } from "../shared/redis-argument.ts";
import { serveExample } from "../shared/serve-example.ts";
import { createSessionsApp, type SessionData } from "./sessions-app.ts";

/** Where the main process leaves `--redis` for the processes of `--processes N` (inherited). */
const redisUrlVariable = "CORRAL_SESSIONS_EXAMPLE_REDIS";

/** Makes the App; each process of `--processes N` makes its own, on the same Redis if any. */
async function createApp() {
  const redisUrl = process.env[redisUrlVariable];
  const redis = redisUrl === undefined ? undefined : await openRedisOrExit("sessions", redisUrl);
  const sessions =
    redis === undefined
      ? undefined
      : new RedisSessionStore<SessionData>({
          redis,
          prefix: "corral:sessions-example:",
          capacity: 1024,
          lifetimeMs: 30 * 60_000,
          // The same cap as the in-memory default's, held across every instance.
          perOwner: { ownerOf: (data) => data.username, maxSessions: 5 },
        });
  const app = createSessionsApp(systemIo, { sessions });
  // Its reconnects and refused commands show in app.stats().redis (and the group's stats).
  if (redis !== undefined) app.includeRedisStats(redis);
  return app;
}
export default createApp;

/**
 * Takes this example's own option (`--redis URL`) out of the command line and leaves it where
 * `createApp` (in this process or in the processes of `--processes N`) finds it; returns the
 * rest for `serveExample`. A bad option is one line and exit status 2.
 */
export function prepare(args: readonly string[]): readonly string[] {
  return prepareRedisArgument(args, "sessions", redisUrlVariable);
}

if (import.meta.main) {
  await serveExample("sessions", import.meta.path, createApp, prepare(process.argv.slice(2)));
}
