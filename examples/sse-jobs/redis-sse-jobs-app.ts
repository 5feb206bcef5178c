import { App, type RedisConnection, RedisSubscriber, systemIo } from "corral";
import { RedisJobProducer } from "./redis-job-producer.ts";
import { RedisSessionSet } from "./redis-session-set.ts";
import type { SessionLocals } from "./session-cookie.ts";
import { addJobRoutes } from "./sse-jobs-app.ts";

/**
 * What the Redis variant of the App shares with its handlers.
 *
 * @example
 * app.shared.producer.channel.notifier.notify();
 */
export interface RedisSseJobsShared {
  readonly producer: RedisJobProducer;
  readonly sessions: RedisSessionSet;
}

/**
 * The sse-jobs example with its sessions, jobs and progress events on Redis, so that every
 * instance on the same Redis serves the same logins and jobs: the routes are those of
 * `createSseJobsApp`, with the same defaults (200 ms per step, 8 job slots per instance, 256
 * streams, 1024 sessions of one hour).
 *
 * @example
 * const app = await createRedisSseJobsApp(await RedisConnection.open({ url }), url);
 * app.listen({ port: 3000 });
 */
export async function createRedisSseJobsApp(
  redis: RedisConnection,
  url: string,
): Promise<App<RedisSseJobsShared, SessionLocals>> {
  const ttlMs = 3_600_000;
  const producer = await RedisJobProducer.open({
    io: systemIo,
    redis,
    subscriber: await RedisSubscriber.open({ url }),
    stepMs: 200,
    maxJobs: 8,
    maxStreams: 256,
    jobTtlMs: ttlMs,
  });
  const sessions = new RedisSessionSet({ redis, capacity: 1024, ttlMs });
  const app = new App<RedisSseJobsShared>({ shared: { producer, sessions }, io: systemIo });
  return addJobRoutes(app, producer, sessions, 15_000);
}
