import { Notifier } from "../notifier.ts";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import type { RedisConnection } from "../redis/redis-connection.ts";
import type { RedisSubscriber } from "../redis/redis-subscriber.ts";
import type { EventRingRead, StoredEvent } from "../sse/event-ring.ts";
import type { EventSourceChannel } from "./event-source.ts";
import { boundsScript, publishScript, readScript } from "./redis-event-scripts.ts";

const redisEventChannelOptionNames = optionNames<RedisEventChannelOptions>({
  redis: true,
  subscriber: true,
  name: true,
  replayCapacity: true,
  maxSubscribers: true,
  prefix: true,
});

/**
 * Options of `RedisEventChannel.open()`.
 *
 * @example
 * const options: RedisEventChannelOptions = { redis, subscriber, name: "jobs", replayCapacity: 256, maxSubscribers: 10_000 };
 */
export interface RedisEventChannelOptions {
  readonly redis: RedisConnection;
  readonly subscriber: RedisSubscriber;
  /** The channel's name; every instance opening the same name shares its events. */
  readonly name: string;
  /** Events the stream keeps for `Last-Event-ID` replay (its `MAXLEN`). */
  readonly replayCapacity: number;
  /** Streams of this process waiting at once. */
  readonly maxSubscribers: number;
  /** Prefix of the Redis keys; `"corral:events:"` by default. */
  readonly prefix?: string;
}

type StreamEntry = [string, string[]];
/** The reply of `readScript`: the entries after the cursor, or (behind = 1) the oldest held. */
type ReadReply = [behind: 0 | 1, entries: StreamEntry[]];

/**
 * An event channel carried by Redis, shared by every process and machine that opens the same
 * name: a Redis stream trimmed to `replayCapacity` entries holds the events (ids `0-N`, N one
 * counter for all instances), and a pub/sub message per event wakes the waiting streams of every
 * instance. A client may reconnect with `Last-Event-ID` to any instance and get what it missed;
 * when some of it was trimmed, the `gap` event says so, as with `EventChannel`.
 *
 * Ids keep rising when Redis restarts empty (no persistence): each instance takes the next id
 * above the highest it has seen (its own publishes and reads, the id at `open()`, and the id in
 * every instance's notification). A stream whose cursor is above every id Redis holds (an
 * instance that had heard of none of the newest ids published first after such a restart, or a
 * `Last-Event-ID` never issued) gets a `gap` event and resumes at the oldest event held, once
 * Redis holds one.
 *
 * While Redis is unreachable, `publish` rejects with `RedisUnavailableError` (503) and open
 * streams wait; once the subscriber reconnects it wakes them and they continue from their cursor.
 *
 * @example
 * const jobs = await RedisEventChannel.open<{ job: number }>({ redis, subscriber, name: "jobs", replayCapacity: 256, maxSubscribers: 1000 });
 * app.continuation("GET", "/events", serverSentEvents(jobs));
 * await jobs.publish({ job: 1 });
 */
export class RedisEventChannel<Payload> implements EventSourceChannel<Payload> {
  readonly notifier: Notifier;
  readonly replayCapacity: number;
  readonly #redis: RedisConnection;
  readonly #keys: readonly [stream: string, counter: string, notification: string];
  /** The highest id this instance has published, read or been notified of: the next id's floor. */
  #highestSeenId = 0;

  private constructor(options: RedisEventChannelOptions) {
    refuseUnknownOptions(options, redisEventChannelOptionNames, "RedisEventChannel.open()");
    if (!Number.isSafeInteger(options.replayCapacity) || options.replayCapacity < 1) {
      throw new TypeError(
        `corral: replayCapacity must be a whole number >= 1, got ${options.replayCapacity}`,
      );
    }
    this.notifier = new Notifier({ capacity: options.maxSubscribers });
    this.replayCapacity = options.replayCapacity;
    this.#redis = options.redis;
    const base = `${options.prefix ?? "corral:events:"}${options.name}`;
    this.#keys = [`${base}:stream`, `${base}:id`, `${base}:published`];
  }

  /**
   * Opens the channel `options.name` and subscribes to its notifications.
   *
   * @example
   * const jobs = await RedisEventChannel.open({ redis, subscriber, name: "jobs", replayCapacity: 256, maxSubscribers: 1000 });
   */
  static async open<Payload>(
    options: RedisEventChannelOptions,
  ): Promise<RedisEventChannel<Payload>> {
    const channel = new RedisEventChannel<Payload>(options);
    // The floor starts at the latest id; the notifications raise it from then on.
    channel.#see(Number((await options.redis.command("GET", [channel.#keys[1]])) ?? 0));
    await options.subscriber.subscribe(channel.#keys[2], (message) => {
      if (message !== undefined) channel.#see(Number(message));
      channel.notifier.notify();
    });
    // Streams whose read failed while the command connection was away read again once it is back.
    options.redis.onReconnect(() => channel.notifier.notify());
    return channel;
  }

  async publish(payload: Payload): Promise<number> {
    const [stream, counter, notification] = this.#keys;
    const id = (await this.#redis.command("EVAL", [
      publishScript,
      "3",
      stream,
      counter,
      notification,
      JSON.stringify(payload),
      String(this.replayCapacity),
      String(this.#highestSeenId),
    ])) as number;
    this.#see(id);
    return id;
  }

  async startCursor(from: "latest" | "oldest"): Promise<number> {
    const [latest, oldest] = (await this.#redis.command("EVAL", [
      boundsScript,
      "2",
      this.#keys[0],
      this.#keys[1],
    ])) as [number, number];
    this.#see(latest);
    return from === "oldest" && oldest > 0 ? oldest - 1 : latest;
  }

  async readAfter(lastSeenId: number, maxEvents: number): Promise<EventRingRead<Payload>> {
    if (!Number.isSafeInteger(lastSeenId) || lastSeenId < 0) {
      throw new TypeError(`corral: lastSeenId must be an integer >= 0, got ${lastSeenId}`);
    }
    const [behind, entries] = (await this.#redis.command("EVAL", [
      readScript,
      "2",
      this.#keys[0],
      this.#keys[1],
      String(lastSeenId),
      String(maxEvents),
    ])) as ReadReply;
    const events: StoredEvent<Payload>[] = entries.map(([id, fields]) => ({
      id: Number(id.slice(2)),
      payload: JSON.parse(fields[1]!) as Payload,
    }));
    const last = events.at(-1);
    if (last !== undefined) this.#see(last.id);
    // Nothing relates the cursor to the ids Redis holds now: resume at the oldest held, as
    // `EventRing` does with an id it never issued, and say so with a gap.
    if (behind === 1 && last !== undefined) return { events, gap: true, nextId: last.id + 1 };
    // Ids are consecutive, so a first id past lastSeenId + 1 means the ones between were trimmed.
    const gap = events[0] !== undefined && events[0].id > lastSeenId + 1;
    return { events, gap, nextId: (last?.id ?? lastSeenId) + 1 };
  }

  #see(id: number): void {
    if (Number.isSafeInteger(id) && id > this.#highestSeenId) this.#highestSeenId = id;
  }
}
