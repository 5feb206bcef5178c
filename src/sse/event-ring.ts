/**
 * Options for {@link EventRing}.
 *
 * @example
 * const options: EventRingOptions = { capacity: 256 };
 */
export interface EventRingOptions {
  /** How many of the latest events are kept for replay; an integer >= 1. */
  readonly capacity: number;
}

/**
 * One event held by an {@link EventRing}, with the id the ring gave it.
 *
 * @example
 * const stored: StoredEvent<string> = { id: 12, payload: "step 3 done" };
 */
export interface StoredEvent<Payload> {
  readonly id: number;
  readonly payload: Payload;
}

/**
 * What {@link EventRing.readAfter} found.
 *
 * @example
 * const read: EventRingRead<string> = { events: [{ id: 8, payload: "x" }], gap: true, nextId: 9 };
 */
export interface EventRingRead<Payload> {
  /** The events, oldest first. */
  readonly events: StoredEvent<Payload>[];
  /** Whether events after the given id were lost: overwritten, or never known to this ring. */
  readonly gap: boolean;
  /** The id the next read starts at: pass `nextId - 1` as the next `lastSeenId`. */
  readonly nextId: number;
}

/**
 * A fixed-capacity ring of the last `capacity` published events: the finite replay window
 * behind `Last-Event-ID` (WHATWG HTML §9.2.4). Ids are integers from 1, one higher per publish,
 * so a client's last event ID says exactly where it stopped. Publishing stores one payload
 * reference in a preallocated slot and allocates nothing else; ids are not stored at all, since
 * an id's slot is `(id - 1) % capacity`.
 *
 * **Gaps.** `readAfter(lastSeenId)` reports `gap: true` when it cannot resume exactly after
 * `lastSeenId`:
 * - the events after it were overwritten (`lastSeenId < oldestId - 1`): a client that stayed
 *   away, or read too slowly, longer than the window lasts;
 * - `lastSeenId > latestId`: an id this ring never issued, typically kept by a client across a
 *   server restart (ids start at 1 again). Nothing relates it to the new ids, so the client is
 *   treated as having missed everything before what is still held.
 *
 * Either way reading resumes at the oldest event held. The stream then first sends one event
 * named `gap` (see {@link encodeGapEvent}) with data `{"missedFrom":M,"resumedAt":R}`, where
 * `M = lastSeenId + 1` and `R` is the id of the first event sent after it (the oldest held, or
 * the next one published when the ring is empty). `M > R` tells the client it was the
 * restart case. Only clients that listen for `gap` see it; `onmessage` does not.
 *
 * Ids are safe integers: at a million events a second they last 285 years, and `publish` throws
 * rather than reuse one.
 *
 * @example
 * const ring = new EventRing<string>({ capacity: 256 });
 * ring.publish("started");
 * // In the stream's step: resume after the client's Last-Event-ID, or only new events.
 * let lastSeenId = parseLastEventId(ctx.request.header("last-event-id")) ?? ring.latestId;
 * const { events, gap, nextId } = ring.readAfter(lastSeenId, 32);
 * if (gap) await writer.writeAll(encodeGapEvent(lastSeenId, events[0]?.id ?? nextId));
 * for (const { id, payload } of events) {
 *   await writer.writeAll(encodeServerSentEvent({ id, data: payload }));
 * }
 * lastSeenId = nextId - 1;
 */
export class EventRing<Payload> {
  readonly #payloads: (Payload | undefined)[];
  readonly #capacity: number;
  #latestId = 0;

  /**
   * @example
   * const ring = new EventRing<{ percent: number }>({ capacity: 64 });
   */
  constructor(options: EventRingOptions) {
    const { capacity } = options;
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new TypeError(`corral: EventRing capacity must be an integer >= 1, got ${capacity}`);
    }
    this.#capacity = capacity;
    this.#payloads = new Array<Payload | undefined>(capacity).fill(undefined);
  }

  /**
   * How many events the ring holds at most.
   *
   * @example
   * new EventRing({ capacity: 8 }).capacity; // 8
   */
  get capacity(): number {
    return this.#capacity;
  }

  /**
   * How many events the ring holds now.
   *
   * @example
   * ring.size; // 0 before the first publish, then up to capacity
   */
  get size(): number {
    return Math.min(this.#latestId, this.#capacity);
  }

  /**
   * The id of the latest event published, or 0 before the first.
   *
   * @example
   * const latest = ring.latestId;
   */
  get latestId(): number {
    return this.#latestId;
  }

  /**
   * The id of the oldest event still held, or `latestId + 1` when none is.
   *
   * @example
   * const oldest = ring.oldestId;
   */
  get oldestId(): number {
    return Math.max(1, this.#latestId - this.#capacity + 1);
  }

  /**
   * Stores `payload` as the next event, overwriting the oldest when the ring is full, and
   * returns its id.
   *
   * @example
   * const id = ring.publish({ percent: 40 }); // 1, then 2, 3, ...
   */
  publish(payload: Payload): number {
    if (this.#latestId === Number.MAX_SAFE_INTEGER) {
      throw new RangeError("corral: EventRing ran out of safe integer ids");
    }
    const id = this.#latestId + 1;
    this.#payloads[(id - 1) % this.#capacity] = payload;
    this.#latestId = id;
    return id;
  }

  /**
   * The events after `lastSeenId` still held, oldest first, at most `maxEvents` of them. When
   * some were lost (see the class notes on gaps) `gap` is true and the events start at the
   * oldest held. Both arguments are programmer input: an id that is not a safe integer >= 0 or
   * a `maxEvents` below 1 throws a `TypeError`.
   *
   * @example
   * const { events, gap, nextId } = ring.readAfter(lastSeenId, 32);
   */
  readAfter(lastSeenId: number, maxEvents: number): EventRingRead<Payload> {
    if (!Number.isSafeInteger(lastSeenId) || lastSeenId < 0) {
      throw new TypeError(`corral: lastSeenId must be an integer >= 0, got ${lastSeenId}`);
    }
    if (!Number.isSafeInteger(maxEvents) || maxEvents < 1) {
      throw new TypeError(`corral: maxEvents must be an integer >= 1, got ${maxEvents}`);
    }
    const oldestId = this.oldestId;
    const gap = lastSeenId < oldestId - 1 || lastSeenId > this.#latestId;
    const firstId = gap ? oldestId : lastSeenId + 1;
    const lastId = Math.min(this.#latestId, firstId + maxEvents - 1);
    const events: StoredEvent<Payload>[] = [];
    for (let id = firstId; id <= lastId; id++) {
      events.push({ id, payload: this.#payloads[(id - 1) % this.#capacity] as Payload });
    }
    return { events, gap, nextId: lastId + 1 };
  }
}
