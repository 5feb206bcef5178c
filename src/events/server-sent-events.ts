import type { Context } from "../context.ts";
import { type ContinuationSpec, reportSurvivedFailure } from "../continuation.ts";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import { RedisUnavailableError } from "../redis/redis-unavailable-error.ts";
import type { EventRingRead } from "../sse/event-ring.ts";
import { encodeGapEvent } from "../sse/gap-event.ts";
import { parseLastEventId } from "../sse/last-event-id.ts";
import {
  encodeServerSentComment,
  encodeServerSentEvent,
  serverSentEventsContentType,
} from "../sse/sse-encoder.ts";
import type { EventSourceChannel } from "./event-source.ts";
import { ReadRetry } from "./read-retry.ts";

const serverSentEventsOptionNames = optionNames<
  ServerSentEventsOptions<never, never, never, never>
>({
  eventName: true,
  encode: true,
  filter: true,
  isLast: true,
  heartbeatMs: true,
  startFrom: true,
  maxEventsPerStep: true,
  resume: true,
  cleanup: true,
});

/** Options of `serverSentEvents()`. */
export interface ServerSentEventsOptions<Shared, Params, Locals, Payload> {
  /** The `event:` name of each payload (none: the client's `message` event). */
  readonly eventName?: (payload: Payload) => string | undefined;
  /** The `data:` text of each payload; `JSON.stringify` by default. */
  readonly encode?: (payload: Payload) => string;
  /** Which payloads this stream sends (e.g. one job's); all by default. */
  readonly filter?: (ctx: Context<Shared, Params, Locals>, payload: Payload) => boolean;
  /** Ends the stream after sending this payload (e.g. a job's last progress event). */
  readonly isLast?: (payload: Payload) => boolean;
  /** Sends a comment after this long without a write, so proxies keep the stream open. */
  readonly heartbeatMs?: number;
  /** Where a client without `Last-Event-ID` starts: only new events (default) or the replay ring. */
  readonly startFrom?: "latest" | "oldest";
  /** Events written per step before flushing and stepping again (64 by default). */
  readonly maxEventsPerStep?: number;
  /**
   * Runs before every resumed step: false ends the stream (e.g. a revoked session); a
   * `RedisUnavailableError` from it makes the stream wait and check again at its next wake.
   */
  readonly resume?: (ctx: Context<Shared, Params, Locals>) => boolean | Promise<boolean>;
  /** Runs once at the end. */
  readonly cleanup?: ContinuationSpec<Shared, Params, Locals, ServerSentEventsState>["cleanup"];
}

/** The bounded state of one SSE stream: where it is in the channel's ring. */
export interface ServerSentEventsState {
  cursor: number;
  /** The last event was sent; set true by a wrapping `state()`, the request is answered 204. */
  finished: boolean;
}

/**
 * A continuation that streams a channel's events as `text/event-stream`, with ids for finite
 * replay: a client reconnecting with `Last-Event-ID` gets the events it missed that are still in
 * the ring, or a `gap` event first when some have fallen out. Waiting streams hold no worker.
 *
 * @example
 * app.continuation("GET", "/events", serverSentEvents(progress, { heartbeatMs: 15_000 }));
 */
export function serverSentEvents<Shared, Params, Locals, Payload>(
  channel: EventSourceChannel<Payload>,
  options: ServerSentEventsOptions<Shared, Params, Locals, Payload> = {},
): ContinuationSpec<Shared, Params, Locals, ServerSentEventsState> {
  refuseUnknownOptions(options, serverSentEventsOptionNames, "serverSentEvents()");
  const encode = options.encode ?? ((payload: Payload) => JSON.stringify(payload));
  const retry = ReadRetry.of(channel.notifier);
  /** Each stream's `retry.news` when it last read, and whether that read failed. */
  const lastReads = new WeakMap<ServerSentEventsState, { news: number; failed: boolean }>();
  const maxEvents = options.maxEventsPerStep ?? 64;
  for (const [name, value] of [
    ["heartbeatMs", options.heartbeatMs ?? 1],
    ["maxEventsPerStep", maxEvents],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`corral: ${name} must be a whole number >= 1, got ${value}`);
    }
  }
  return {
    contentType: serverSentEventsContentType,
    notifier: channel.notifier,
    ...(options.heartbeatMs === undefined ? {} : { wakeAfterMs: options.heartbeatMs }),
    ...(options.resume === undefined ? {} : { resume: options.resume }),
    ...(options.cleanup === undefined ? {} : { cleanup: options.cleanup }),
    // A state already finished (a wrapper found the client has the last event) answers 204.
    noContent: (state) => state.finished,
    async state(ctx) {
      ctx.response.header("Cache-Control", "no-cache");
      const lastEventId = parseLastEventId(ctx.request.header("last-event-id"));
      const cursor = lastEventId ?? (await channel.startCursor(options.startFrom ?? "latest"));
      return { cursor, finished: false };
    },
    async step(ctx, state, writer, reason) {
      if (state.finished) return "finish";
      const lastRead = lastReads.get(state);
      // Woken only by a retry, and its last read did not fail: there is nothing new to read.
      if (reason === "notified" && lastRead?.failed === false && lastRead.news === retry.news) {
        return "wait";
      }
      const thisRead = { news: retry.news, failed: true };
      lastReads.set(state, thisRead);
      const read = await readOrWait(channel, state.cursor, maxEvents, retry);
      // The shared store is away: keep the stream open and its cursor; the retry timer wakes it
      // (slow or busy), or the reconnect (lost).
      if (read === undefined) return "wait";
      thisRead.failed = false;
      let written = 0;
      if (read.gap) {
        await writer.writeAll(encodeGapEvent(state.cursor, read.events[0]?.id ?? read.nextId));
        written++;
      }
      for (const event of read.events) {
        state.cursor = event.id;
        let frame: string | undefined;
        let last = false;
        try {
          if (options.filter !== undefined && !options.filter(ctx, event.payload)) continue;
          const name = options.eventName?.(event.payload);
          frame = encodeServerSentEvent({
            id: event.id,
            data: encode(event.payload),
            ...(name === undefined ? {} : { event: name }),
          });
          last = options.isLast?.(event.payload) === true;
        } catch (error) {
          // One event that cannot be sent (a lone surrogate, a BigInt, a name with a newline)
          // must not end every stream at it, again at each reconnect from before it: skipped,
          // logged and counted.
          reportSurvivedFailure(ctx, `event ${event.id} could not be sent and is skipped`, error);
          continue;
        }
        await writer.writeAll(frame);
        written++;
        if (last) {
          state.finished = true;
          return "finish";
        }
      }
      state.cursor = read.nextId - 1;
      if (read.events.length >= maxEvents) return "flush";
      // Only the heartbeat timer writes a comment: a wake for another stream's event does not.
      if (written === 0 && reason === "timer") {
        await writer.writeAll(encodeServerSentComment("heartbeat"));
      }
      return "wait";
    },
  };
}

/**
 * The channel's next events, or `undefined` while a shared (Redis) channel cannot be read: a
 * read that was too slow, refused as busy, or refused by Redis (still `LOADING` its data after
 * a restart, say: no reconnect will announce the end of that) is retried on `retry`'s timer.
 */
async function readOrWait<Payload>(
  channel: EventSourceChannel<Payload>,
  cursor: number,
  maxEvents: number,
  retry: ReadRetry,
): Promise<EventRingRead<Payload> | undefined> {
  try {
    const read = await channel.readAfter(cursor, maxEvents);
    retry.succeeded();
    return read;
  } catch (error) {
    if (!(error instanceof RedisUnavailableError)) throw error;
    const reason = error.reason;
    if (reason === "timeout" || reason === "busy" || reason === "refused") retry.failed();
    return undefined;
  }
}
