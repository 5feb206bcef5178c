import { App } from "../../src/app.ts";
import { RedisEventChannel } from "../../src/events/redis-event-channel.ts";
import { serverSentEvents } from "../../src/events/server-sent-events.ts";
import { RedisConnection, type RedisConnectionOptions } from "../../src/redis/redis-connection.ts";
import { RedisSubscriber } from "../../src/redis/redis-subscriber.ts";
import { type ParsedEvent, readEventStream } from "../sse/event-stream-parser.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

/** Options of one test instance beyond the Redis URL and the channel's name. */
export interface InstanceOptions {
  readonly replayCapacity?: number;
  readonly connection?: Omit<RedisConnectionOptions, "url">;
}

/**
 * One instance: its own Redis connections, the channel `name`, and `GET /events` on a port.
 *
 * @example
 * await using a = await instance(redis.url, "jobs");
 */
export async function instance(url: string, name: string, options: InstanceOptions = {}) {
  const redis = await RedisConnection.open({ url, ...options.connection });
  const subscriber = await RedisSubscriber.open({ url });
  const channel = await RedisEventChannel.open<{ n: number }>({
    redis,
    subscriber,
    name,
    replayCapacity: options.replayCapacity ?? 16,
    maxSubscribers: 8,
  });
  const app = new App({ shared: {} });
  app.continuation("GET", "/events", serverSentEvents(channel, { heartbeatMs: 60_000 }));
  const server = listenQuietly(app);
  return {
    redis,
    subscriber,
    channel,
    url: `http://127.0.0.1:${server.port}/events`,
    async [Symbol.asyncDispose]() {
      await app.stop({ graceMs: 100 });
      subscriber.close();
      redis.close();
    },
  };
}

/**
 * An open SSE response, read until a condition holds on the events so far (or for at most
 * `deadlineMs`, then it fails naming what it got).
 *
 * @example
 * const stream = await openStream(a.url, 3);
 * const events = await stream.until((seen) => seen.length === 2);
 */
export async function openStream(url: string, lastEventId?: number, deadlineMs = 5000) {
  const abort = new AbortController();
  const headers: Record<string, string> =
    lastEventId === undefined ? {} : { "Last-Event-ID": String(lastEventId) };
  const response = await fetch(url, { headers, signal: abort.signal });
  const reader = response.body!.getReader();
  let text = "";
  return {
    status: response.status,
    async until(done: (events: ParsedEvent[]) => boolean): Promise<ParsedEvent[]> {
      const deadline = Date.now() + deadlineMs;
      let events = readEventStream(text).events;
      while (!done(events)) {
        const timeout = Bun.sleep(Math.max(0, deadline - Date.now())).then(
          () => "timeout" as const,
        );
        const read = await Promise.race([reader.read(), timeout]);
        if (read === "timeout") throw new Error(`gave up after ${JSON.stringify(brief(events))}`);
        if (read.done) throw new Error(`stream ended after ${JSON.stringify(brief(events))}`);
        text += new TextDecoder().decode(read.value);
        events = readEventStream(text).events;
      }
      return events;
    },
    close() {
      abort.abort();
    },
  };
}

/**
 * Events as `id:type:data` lines, for one `toEqual`.
 *
 * @example
 * brief(events); // ['1:message:{"n":1}']
 */
export const brief = (events: ParsedEvent[]) =>
  events.map((event) => `${event.lastEventId}:${event.type}:${event.data}`);
