import { Notifier } from "../notifier.ts";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import { EventRing, type EventRingRead } from "../sse/event-ring.ts";
import type { EventSourceChannel } from "./event-source.ts";

const eventChannelOptionNames = optionNames<{ replayCapacity: number; maxSubscribers: number }>({
  replayCapacity: true,
  maxSubscribers: true,
});

/**
 * A producer's outlet: published events go into a fixed replay ring (finite `Last-Event-ID`
 * replay) and wake every waiting stream through a bounded notifier. Nothing is buffered per
 * subscriber: a stream reads from the shared ring at its own cursor, so a stream too slow to keep
 * up finds its cursor fallen out of the ring and is told so (a `gap` event) instead of making the
 * server hold a backlog for it.
 *
 * @example
 * const progress = new EventChannel<{ job: number; percent: number }>({
 *   replayCapacity: 256,
 *   maxSubscribers: 10_000,
 * });
 * progress.publish({ job: 1, percent: 40 });
 */
export class EventChannel<Payload> implements EventSourceChannel<Payload> {
  readonly ring: EventRing<Payload>;
  readonly notifier: Notifier;

  constructor(options: { readonly replayCapacity: number; readonly maxSubscribers: number }) {
    refuseUnknownOptions(options, eventChannelOptionNames, "new EventChannel()");
    this.ring = new EventRing<Payload>({ capacity: options.replayCapacity });
    this.notifier = new Notifier({ capacity: options.maxSubscribers });
  }

  /** Stores `payload` under the next id and wakes the waiting streams; returns the id. */
  publish(payload: Payload): number {
    const id = this.ring.publish(payload);
    this.notifier.notify();
    return id;
  }

  /** The cursor of a new stream: after the newest event, or before the oldest in the ring. */
  startCursor(from: "latest" | "oldest"): number {
    return from === "oldest" ? this.ring.oldestId - 1 : this.ring.latestId;
  }

  /** Up to `maxEvents` events after `lastSeenId` from the ring (see `EventRing.readAfter`). */
  readAfter(lastSeenId: number, maxEvents: number): EventRingRead<Payload> {
    return this.ring.readAfter(lastSeenId, maxEvents);
  }

  /** Id of the newest event (0 before the first). */
  get latestId(): number {
    return this.ring.latestId;
  }

  /** Streams subscribed now. */
  get subscribers(): number {
    return this.notifier.size;
  }
}
