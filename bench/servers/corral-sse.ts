// A corral App holding many idle server-sent event streams: `GET /events` is
// `serverSentEvents(channel)` (a pooled continuation: a waiting stream holds no worker), with 4
// workers and a connection slot for every stream. Control routes for the orchestrator:
// `GET /subscribers` (streams subscribed now), `POST /broadcast` (publishes one event carrying
// its publish time; answers `{ id, publishedAt }`) and `POST /gc` (a full collection, so that RSS
// readings compare live memory). Times are `performance.timeOrigin + performance.now()`: epoch
// milliseconds with sub-millisecond resolution, comparable across processes on one machine.
//
// With `--redis URL` the channel is a `RedisEventChannel` named "bench" on that server instead of
// the in-process `EventChannel`: every instance started with the same URL shares its events.
//
// Usage: bun bench/servers/corral-sse.ts --port 0 [--streams N] [--redis redis://127.0.0.1:PORT]
//        (N = 10000 by default)
import {
  App,
  EventChannel,
  type EventSourceChannel,
  RedisConnection,
  RedisEventChannel,
  RedisSubscriber,
  serverSentEvents,
} from "corral";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import type { BroadcastEvent } from "./payloads.ts";

const streams = streamsArgument();
/** Room beyond the streams for the orchestrator's control connections. */
const spareConnections = 240;
const maxConnections = Math.max(10_240, streams + spareConnections);

const channel = await openChannel(redisArgument());
let broadcasts = 0;

const app = new App({
  shared: {},
  limits: {
    workers: 4,
    maxConnections,
    // Every stream's GET may queue for one of the 4 workers while thousands connect at once.
    maxQueuedRequests: maxConnections,
  },
});
app.continuation("GET", "/events", serverSentEvents(channel));
app.route("GET", "/subscribers", (ctx) => {
  ctx.response.text(200, String(channel.notifier.size));
});
app.route("POST", "/broadcast", async (ctx) => {
  const publishedAt = performance.timeOrigin + performance.now();
  const id = await channel.publish({ seq: ++broadcasts, publishedAt });
  ctx.response.json(200, { id, publishedAt });
});
app.route("POST", "/gc", (ctx) => {
  Bun.gc(true);
  ctx.response.text(200, "ok");
});

const server = app.listen({ hostname: "127.0.0.1", port: parsePort() });
reportCorral({ budget: server.budget, limits: app.limits, stats: () => server.stats() });
announceReady(server.port);

function streamsArgument(argv: readonly string[] = Bun.argv): number {
  const index = argv.indexOf("--streams");
  if (index < 0) return 10_000;
  const value = Number(argv[index + 1]);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`corral-sse: --streams takes a whole number >= 1, got ${argv[index + 1]}`);
  }
  return value;
}

/** The in-process channel, or with a Redis URL the shared one. */
async function openChannel(url: string | undefined): Promise<EventSourceChannel<BroadcastEvent>> {
  const replayCapacity = 16;
  if (url === undefined)
    return new EventChannel({ replayCapacity, maxSubscribers: maxConnections });
  // One publish wakes every stream, and each reads the stream with one XRANGE: all of them may be
  // pending at once, so the bound on pending commands is the number of streams (and some room).
  const redis = await RedisConnection.open({ url, maxPendingCommands: maxConnections });
  const subscriber = await RedisSubscriber.open({ url });
  return RedisEventChannel.open({
    redis,
    subscriber,
    name: "bench",
    replayCapacity,
    maxSubscribers: maxConnections,
  });
}

function redisArgument(argv: readonly string[] = Bun.argv): string | undefined {
  const index = argv.indexOf("--redis");
  return index < 0 ? undefined : argv[index + 1];
}
