import {
  type Context,
  type ContinuationSpec,
  type EventChannel,
  encodeGapEvent,
  encodeServerSentComment,
  encodeServerSentEvent,
  HttpError,
  type Io,
  parseLastEventId,
  type StepResult,
  type StreamWriter,
  serverSentEventsContentType,
} from "corral";

/**
 * The typed state of one `GET /messages/stream`: made once per request, alive (and all that is
 * kept) while the stream waits without a worker.
 *
 * @example
 * const state: MessageStreamState = {
 *   cursor: 0, sent: 0, lastWriteAt: 0, maxMessages: 5, untilId: Number.POSITIVE_INFINITY,
 * };
 */
export interface MessageStreamState {
  /** Id of the last message this stream is past: sent, or lost to a gap. */
  cursor: number;
  /** Messages sent so far. */
  sent: number;
  /** When the stream last wrote, on the Io's monotonic clock (heartbeats follow silence). */
  lastWriteAt: number;
  /** `?count=N`: finish after N messages (no limit without it). */
  readonly maxMessages: number;
  /** `?until=ID`: finish once message ID is sent (no end without it). */
  readonly untilId: number;
}

/**
 * Options of {@link messageStream}.
 *
 * @example
 * const options: MessageStreamOptions = { io: app.io, batchSize: 16, heartbeatMs: 15_000 };
 */
export interface MessageStreamOptions {
  readonly io: Io;
  /** Messages written per step; a stream further behind flushes and steps again. */
  readonly batchSize: number;
  /** A comment is sent after this long without a write, so proxies keep the stream open. */
  readonly heartbeatMs: number;
}

const wholeNumber = /^[1-9][0-9]{0,8}$/;

/**
 * `GET /messages/stream`, written out by hand: a continuation over the room's channel whose step
 * says explicitly what comes next.
 *
 * - `"flush"`: the batch limit was hit and more messages wait; send this batch and step again at
 *   once, keeping the worker.
 * - `"wait"`: caught up; send, give the worker back, and sleep until a message is posted (the
 *   room's notifier) or the heartbeat timer fires.
 * - `"finish"`: `?count=` messages were sent or message `?until=` was reached; end the stream.
 *
 * Each message is an SSE frame whose id is the message id, so an `EventSource` reconnecting
 * with `Last-Event-ID` resumes where it stopped (after a `gap` event if the room's ring has
 * moved past it). Without one a stream starts with the next message posted.
 *
 * @example
 * const spec = messageStream(room, { io: app.io, batchSize: 16, heartbeatMs: 15_000 });
 * app.continuation("GET", "/messages/stream", spec);
 */
export function messageStream(
  room: EventChannel<string>,
  options: MessageStreamOptions,
): ContinuationSpec<unknown, unknown, object, MessageStreamState> {
  const { io, batchSize, heartbeatMs } = options;
  return {
    contentType: serverSentEventsContentType,
    notifier: room.notifier,
    wakeAfterMs: heartbeatMs,
    state(ctx) {
      const state: MessageStreamState = {
        cursor: parseLastEventId(ctx.request.header("last-event-id")) ?? room.latestId,
        sent: 0,
        lastWriteAt: io.monotonicNow(),
        maxMessages: wholeNumberParameter(ctx, "count") ?? Number.POSITIVE_INFINITY,
        untilId: wholeNumberParameter(ctx, "until") ?? Number.POSITIVE_INFINITY,
      };
      ctx.response.header("Cache-Control", "no-cache");
      return state;
    },
    async step(_ctx, state, writer): Promise<StepResult> {
      if (state.cursor >= state.untilId) return "finish";
      const read = room.ring.readAfter(state.cursor, batchSize);
      if (read.gap) {
        await write(writer, state, encodeGapEvent(state.cursor, read.events[0]?.id ?? read.nextId));
      }
      for (const { id, payload } of read.events) {
        // Only after a gap: message `until` itself was lost, and this one is past it.
        if (id > state.untilId) return "finish";
        await write(writer, state, encodeServerSentEvent({ id, data: payload }));
        state.cursor = id;
        state.sent++;
        if (state.sent >= state.maxMessages || id === state.untilId) return "finish";
      }
      state.cursor = read.nextId - 1;
      // The batch limit was hit and more messages wait: send these, step again at once.
      if (state.cursor < room.latestId) return "flush";
      // Caught up. A wake that found nothing (the heartbeat timer, or a notification whose
      // message an earlier step already sent) writes a comment only after heartbeatMs of silence.
      if (io.monotonicNow() - state.lastWriteAt >= heartbeatMs) {
        await write(writer, state, encodeServerSentComment("keep-alive"));
      }
      return "wait";
    },
  };

  function write(writer: StreamWriter, state: MessageStreamState, frame: string): Promise<void> {
    state.lastWriteAt = io.monotonicNow();
    return writer.writeAll(frame);
  }
}

// The query is read raw: a whole number has nothing to decode, and anything else is a 400.
function wholeNumberParameter(ctx: Context<unknown, unknown, object>, name: string) {
  const raw = ctx.request.queryValueRaw(name);
  if (raw === undefined) return undefined;
  if (!wholeNumber.test(raw)) {
    throw new HttpError(400, `Bad Request: ${name} must be a whole number from 1 to 999999999`);
  }
  return Number(raw);
}
