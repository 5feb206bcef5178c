import type { Notifier } from "../notifier.ts";
import type { EventRingRead } from "../sse/event-ring.ts";

/**
 * What `serverSentEvents()` needs of a channel, whichever transport carries it: `EventChannel`
 * (this process's memory) or `RedisEventChannel` (a Redis stream shared by every instance).
 * Ids are whole numbers from 1, one sequence per channel for every instance, so a client's
 * `Last-Event-ID` means the same wherever it reconnects. Reads may be asynchronous.
 *
 * @example
 * function follow<Payload>(channel: EventSourceChannel<Payload>) {
 *   return serverSentEvents(channel, { heartbeatMs: 15_000 });
 * }
 */
export interface EventSourceChannel<Payload> {
  /** Wakes this process's waiting streams when an event is published (on any instance). */
  readonly notifier: Notifier;
  /** The cursor of a new stream without `Last-Event-ID`: after the newest event, or before the oldest held. */
  startCursor(from: "latest" | "oldest"): number | Promise<number>;
  /** Up to `maxEvents` events after `lastSeenId`, with `gap` set when some were trimmed. */
  readAfter(
    lastSeenId: number,
    maxEvents: number,
  ): EventRingRead<Payload> | Promise<EventRingRead<Payload>>;
  /** Stores `payload` under the next id, wakes the waiting streams, and returns the id. */
  publish(payload: Payload): number | Promise<number>;
}
