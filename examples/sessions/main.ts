// `bun run example sessions --port <port> [--redis redis://host:port]`: login, a protected page
// and logout with sessions; with --redis, every instance on that Redis shares them.
import { RedisSessionStore, systemIo } from "corral";
import { openRedisOrExit, takeRedisArgument } from "../shared/redis-argument.ts";
import { serveExample } from "../shared/serve-example.ts";
import { createSessionsApp, type SessionData } from "./sessions-app.ts";

const parsed = takeRedisArgument(process.argv.slice(2), "sessions");
if (typeof parsed === "string") {
  console.error(parsed);
  process.exit(2);
}
const sessions =
  parsed.redisUrl === undefined
    ? undefined
    : new RedisSessionStore<SessionData>({
        redis: await openRedisOrExit("sessions", parsed.redisUrl),
        prefix: "corral:sessions-example:",
        capacity: 1024,
        lifetimeMs: 30 * 60_000,
        // The same cap as the in-memory default's, held across every instance.
        perOwner: { ownerOf: (data) => data.username, maxSessions: 5 },
      });
serveExample("sessions", createSessionsApp(systemIo, { sessions }), parsed.rest);
