import {
  App,
  type Context,
  HttpError,
  RedisConnection,
  RedisRoomBridge,
  RedisSubscriber,
} from "corral";

import { EchoBacklog } from "./echo-backlog.ts";
import page from "./page.html" with { type: "text" };

const pageBytes = new TextEncoder().encode(page as unknown as string);

/** The echo route takes messages up to 16 MiB; one byte more is closed with 1009. */
export const maxEchoMessageBytes = 16 * 1024 * 1024;
/** What all echo clients together may have queued: four of the largest echoes. */
export const defaultEchoBacklogBytes = 4 * maxEchoMessageBytes;
const roomPattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The server's own origin: `http://127.0.0.1:P` or `http://localhost:P`, P the port the browser
 * connected to (its `Host`), or no port at all for port 80, which a browser leaves out of both
 * `Host` and `Origin` (RFC 6454 §6.2). Any other page gets 403: a site the user visits cannot
 * open a socket here in the user's name (RFC 6455 §10.2).
 */
function ownOrigin(
  origin: string,
  ctx: Context<unknown, Readonly<Record<string, string>>, object>,
) {
  const host = ctx.request.header("host") ?? "";
  const colon = host.lastIndexOf(":");
  const port = colon < 0 ? "80" : host.slice(colon + 1);
  const suffix = port === "80" ? "" : `:${port}`;
  return origin === `http://127.0.0.1${suffix}` || origin === `http://localhost${suffix}`;
}

/**
 * The chat example: `GET /echo` echoes every message (text as text, binary as binary) up to
 * 16 MiB; `GET /chat?room=NAME` delivers each text message to every member of the room, the
 * sender included; `GET /` is a page to try it. With `redisUrl`, rooms span every process and
 * machine on that Redis. Echoes not yet read by their clients take at most `echoBacklogBytes`
 * (64 MiB by default) all together; past it, the sender is closed with 1013.
 */
export async function createChatApp(
  options: { readonly redisUrl?: string; readonly echoBacklogBytes?: number } = {},
) {
  const backlog = new EchoBacklog(options.echoBacklogBytes ?? defaultEchoBacklogBytes);
  const app = new App({
    shared: {},
    limits: {
      maxWebSocketMessageBytes: maxEchoMessageBytes,
      webSocketMessageBuffers: 2,
    },
  });
  app.route("GET", "/", (ctx) => {
    ctx.response.borrowBody(200, "text/html; charset=utf-8", pageBytes);
  });
  app.ws("/echo", {
    origins: ownOrigin,
    limits: {
      maxMessageBytes: maxEchoMessageBytes,
      maxFrameBytes: maxEchoMessageBytes,
      maxFragments: 4096,
      // One echo of the largest message, with its frame header, fits.
      maxOutboundBytes: maxEchoMessageBytes + 16,
    },
    message(socket, message) {
      backlog.echo(socket, message);
    },
    close(socket) {
      backlog.forget(socket);
    },
  });
  app.ws("/chat", {
    origins: ownOrigin,
    limits: { maxMessageBytes: 4096, maxFrameBytes: 4096, outboundPolicy: "close" },
    upgrade(ctx) {
      const room = ctx.request.queryValueRaw("room") ?? "";
      if (!roomPattern.test(room)) throw new HttpError(400, "room must be 1-64 of A-Z a-z 0-9 _ -");
      return { room };
    },
    open(socket) {
      socket.subscribe(socket.data.room);
    },
    message(socket, message) {
      if (typeof message !== "string") {
        // RFC 6455 §7.4.1: 1003, a type of data the endpoint cannot accept.
        socket.close(1003, "text messages only");
        return;
      }
      socket.publish(socket.data.room, message);
    },
  });
  if (options.redisUrl !== undefined) {
    const redis = await RedisConnection.open({ url: options.redisUrl });
    const subscriber = await RedisSubscriber.open({ url: options.redisUrl });
    await RedisRoomBridge.open(app.rooms, { redis, subscriber });
    app.includeRedisStats(redis);
    app.includeRedisStats(subscriber);
  }
  return app;
}
