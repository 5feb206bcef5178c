import { App, EventChannel, HttpError, type Io } from "corral";
import { messageStream } from "./message-stream.ts";

/**
 * Options of {@link createContinuationsApp}; tests pass a `ManualIo` and small limits.
 *
 * @example
 * const app = createContinuationsApp({ io: new ManualIo(), batchSize: 2, maxStreams: 2 });
 */
export interface ContinuationsOptions {
  /** Clock and timers (the heartbeat); `systemIo` by default. */
  readonly io?: Io;
  /** Application workers shared by every stream and request (4). */
  readonly workers?: number;
  /** Streams open at once; one more is a 503 (1000). */
  readonly maxStreams?: number;
  /** Messages the room keeps for `Last-Event-ID` replay (1024). */
  readonly roomCapacity?: number;
  /** Largest message body in bytes; one more is a 413 from the engine (1024). */
  readonly maxMessageBytes?: number;
  /** Messages a stream writes per step before it flushes and steps again (16). */
  readonly batchSize?: number;
  /** Comment sent on a silent stream after this long (15 s). */
  readonly heartbeatMs?: number;
}

/**
 * What the App shares with its handlers, and with tests: the chat room, a channel of message
 * texts whose replay ring holds the latest `roomCapacity` messages.
 *
 * @example
 * app.shared.room.latestId; // id of the newest message
 */
export interface ContinuationsShared {
  readonly room: EventChannel<string>;
}

/**
 * The continuations example: a chat room where many streams share a few workers.
 *
 * - `POST /messages`: posts the body (UTF-8 text) as the next message; 201 with its id.
 * - `GET /messages/stream`: the messages as server-sent events, a hand-written continuation
 *   (`?count=N` ends after N messages, `?until=ID` after message ID).
 * - `GET /stats`: the engine's counters that show it (workers busy, connections open, streams).
 *
 * @example
 * const app = createContinuationsApp();
 * app.listen({ port: 3000 });
 */
export function createContinuationsApp(
  options: ContinuationsOptions = {},
): App<ContinuationsShared> {
  const room = new EventChannel<string>({
    replayCapacity: options.roomCapacity ?? 1024,
    maxSubscribers: options.maxStreams ?? 1000,
  });
  const app = new App<ContinuationsShared>({
    shared: { room },
    // The engine refuses a longer message with 413 before reading its body.
    limits: { workers: options.workers ?? 4, maxBodyBytes: options.maxMessageBytes ?? 1024 },
    ...(options.io ? { io: options.io } : {}),
  });

  app.route("POST", "/messages", (ctx) => {
    if (ctx.request.body.length === 0) throw new HttpError(400, "Bad Request: empty message");
    const id = room.publish(ctx.request.text());
    ctx.response.json(201, { id });
  });
  app.continuation(
    "GET",
    "/messages/stream",
    messageStream(room, {
      io: app.io,
      batchSize: options.batchSize ?? 16,
      heartbeatMs: options.heartbeatMs ?? 15_000,
    }),
  );
  app.route("GET", "/stats", (ctx) => {
    const stats = app.stats();
    ctx.response.header("Cache-Control", "no-store");
    ctx.response.json(200, {
      workers: app.limits.workers,
      workersBusy: stats.workersBusy,
      peakWorkersBusy: stats.peakWorkersBusy,
      queuedRequests: stats.queuedRequests,
      connectionsOpen: stats.connectionsOpen,
      streamsOpen: room.subscribers,
      messages: room.latestId,
    });
  });
  return app;
}
