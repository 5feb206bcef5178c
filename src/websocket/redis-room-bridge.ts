import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import type { RedisConnection } from "../redis/redis-connection.ts";
import type { RedisSubscriber } from "../redis/redis-subscriber.ts";
import type { RoomBridge, Rooms } from "./rooms.ts";

const redisRoomBridgeOptionNames = optionNames<RedisRoomBridgeOptions>({
  redis: true,
  subscriber: true,
  channel: true,
});

/** Options of `RedisRoomBridge.open()`. */
export interface RedisRoomBridgeOptions {
  /** A command connection: publishes go out on it. */
  readonly redis: RedisConnection;
  /** The process's subscriber: publishes from other processes come in on it. */
  readonly subscriber: RedisSubscriber;
  /** The Redis channel all rooms of the App share; `"corral:rooms"` by default. */
  readonly channel?: string;
}

/** Counters of the bridge. */
export interface RedisRoomBridgeStats {
  /** Publishes sent to Redis. */
  readonly forwarded: number;
  /** Publishes Redis refused or could not take (the members here got them; others did not). */
  readonly forwardFailures: number;
  /** Publishes received from other processes. */
  readonly received: number;
}

/**
 * Spreads an App's rooms over processes and machines with Redis pub/sub (Bun's `RedisClient`):
 * a publish is delivered to the members here at once and sent to one Redis channel, which every
 * process's subscriber hears; each process delivers it to its own members of that room and
 * skips what it sent itself. One channel for all rooms keeps Redis subscriptions fixed however
 * many rooms there are; a process with no member in a room drops its messages at once.
 * Messages published while a process is cut off from Redis do not reach it (pub/sub keeps
 * nothing), and its own publishes reach only its members meanwhile (`forwardFailures`).
 *
 * @example
 * const redis = await RedisConnection.open({ url });
 * const subscriber = await RedisSubscriber.open({ url });
 * await RedisRoomBridge.open(app.rooms, { redis, subscriber });
 */
export class RedisRoomBridge implements RoomBridge {
  readonly #rooms: Rooms;
  readonly #redis: RedisConnection;
  readonly #channel: string;
  /** This process's id in the messages it sends: its own come back and are skipped. */
  readonly #origin = crypto.randomUUID();
  #forwarded = 0;
  #forwardFailures = 0;
  #received = 0;

  private constructor(rooms: Rooms, options: RedisRoomBridgeOptions) {
    refuseUnknownOptions(options, redisRoomBridgeOptionNames, "RedisRoomBridge");
    this.#rooms = rooms;
    this.#redis = options.redis;
    this.#channel = options.channel ?? "corral:rooms";
  }

  /** Subscribes and connects `rooms` to the bridge. */
  static async open(rooms: Rooms, options: RedisRoomBridgeOptions): Promise<RedisRoomBridge> {
    const bridge = new RedisRoomBridge(rooms, options);
    await options.subscriber.subscribe(bridge.#channel, (message) => {
      if (message !== undefined) bridge.#receive(message);
    });
    rooms.bridge(bridge);
    return bridge;
  }

  forward(room: string, message: string | Uint8Array): void {
    // One line of text: origin, room length, room, kind, payload (binary in base64).
    const payload =
      typeof message === "string" ? `t${message}` : `b${Buffer.from(message).toString("base64")}`;
    const encoded = `${this.#origin} ${room.length} ${room}${payload}`;
    this.#forwarded++;
    this.#redis.command("PUBLISH", [this.#channel, encoded]).catch(() => {
      this.#forwardFailures++;
    });
  }

  stats(): RedisRoomBridgeStats {
    return {
      forwarded: this.#forwarded,
      forwardFailures: this.#forwardFailures,
      received: this.#received,
    };
  }

  #receive(encoded: string): void {
    const originEnd = encoded.indexOf(" ");
    if (originEnd < 0 || encoded.slice(0, originEnd) === this.#origin) return;
    const lengthEnd = encoded.indexOf(" ", originEnd + 1);
    const roomLength = Number(encoded.slice(originEnd + 1, lengthEnd));
    if (!Number.isSafeInteger(roomLength) || roomLength < 1) return;
    const roomStart = lengthEnd + 1;
    const room = encoded.slice(roomStart, roomStart + roomLength);
    const kind = encoded[roomStart + roomLength];
    const body = encoded.slice(roomStart + roomLength + 1);
    this.#received++;
    if (this.#rooms.size(room) === 0) return;
    this.#rooms.deliver(room, kind === "b" ? new Uint8Array(Buffer.from(body, "base64")) : body);
  }
}
