import { RedisClient } from "bun";
import { RedisConnection } from "./redis-connection.ts";
import { RedisUnavailableError } from "./redis-unavailable-error.ts";

interface Subscription {
  readonly listener: (message?: string) => void;
  readonly handler: (message: string) => void;
}

/**
 * The one connection of a process that listens for Redis pub/sub messages (a subscribed
 * connection can send nothing else). Each subscribed channel has one listener, called once per
 * message however often the connection was lost. After a lost connection comes back it
 * subscribes again and then calls every listener once, since messages sent while it was away
 * are lost: a listener that re-reads its source then misses nothing.
 *
 * @example
 * const subscriber = await RedisSubscriber.open({ url: "redis://127.0.0.1:6379" });
 * await subscriber.subscribe("jobs", () => channel.notifier.notify());
 */
export class RedisSubscriber {
  readonly #client: RedisClient;
  /** Each channel's listener, and the handler given to the client that calls it. */
  readonly #channels = new Map<string, Subscription>();
  #connects = 0;

  private constructor(client: RedisClient) {
    this.#client = client;
    client.onconnect = () => {
      if (++this.#connects === 1) return;
      const connect = this.#connects;
      for (const [channel, subscription] of this.#channels) {
        void this.#subscribeAgain(channel, subscription, connect);
      }
    };
  }

  /**
   * Bun's client keeps its listeners over a reconnect but does not send SUBSCRIBE again (Bun
   * 1.4.4), and `subscribe` adds a listener each time: every message would come once more per
   * reconnect. So the channel's listeners are all taken off first (it has only this one) and the
   * handler put back: one listener, whether or not a later Bun subscribes again by itself. The
   * listener is called to re-read only once Redis has confirmed the subscription.
   */
  async #subscribeAgain(channel: string, subscription: Subscription, connect: number) {
    const current = () =>
      connect === this.#connects && this.#channels.get(channel) === subscription;
    await this.#takeListenersOff(channel);
    if (!current()) return;
    try {
      await this.#client.subscribe(channel, subscription.handler);
    } catch {
      // Lost again at once: the next connect subscribes again.
      return;
    }
    if (current()) subscription.listener();
  }

  /** Takes the client's listeners of `channel` off; it throws when it has none anywhere. */
  async #takeListenersOff(channel: string): Promise<void> {
    try {
      await this.#client.unsubscribe(channel);
    } catch {
      // None to take off, or the connection is lost again (then subscribing fails as well).
    }
  }

  /**
   * Connects (checked like `RedisConnection.open`, so an unreachable Redis is one clear error).
   *
   * @example
   * const subscriber = await RedisSubscriber.open({ url: "redis://127.0.0.1:6379" });
   */
  static async open(options: { readonly url: string }): Promise<RedisSubscriber> {
    // A command connection proves the server answers, with the same one-line error when not.
    (await RedisConnection.open({ url: options.url })).close();
    const client = new RedisClient(options.url, {
      enableOfflineQueue: false,
      autoReconnect: true,
      maxRetries: 4_294_967_295,
    });
    const subscriber = new RedisSubscriber(client);
    await client.connect();
    return subscriber;
  }

  /** Connections made again after a loss. */
  get reconnects(): number {
    return Math.max(0, this.#connects - 1);
  }

  /**
   * Calls `listener` on every message published to `channel` (with the message), and once
   * after each reconnect (without one: messages sent while away are lost). Rejects with a
   * `RedisUnavailableError` when Redis cannot be reached (an error reply from Redis rejects
   * with Bun's `RedisError`); the channel can then be subscribed again.
   *
   * @example
   * await subscriber.subscribe("jobs", () => notifier.notify());
   */
  async subscribe(channel: string, listener: (message?: string) => void): Promise<void> {
    if (this.#channels.has(channel)) {
      throw new TypeError(
        `corral: Redis channel ${JSON.stringify(channel)} already has a listener`,
      );
    }
    const subscription: Subscription = { listener, handler: (message) => listener(message) };
    this.#channels.set(channel, subscription);
    try {
      await this.#client.subscribe(channel, subscription.handler);
    } catch (error) {
      // Not subscribed: the channel is free to open again, once Redis is back.
      this.#channels.delete(channel);
      await this.#takeListenersOff(channel);
      if ((error as { code?: string }).code === "ERR_REDIS_SERVER_ERROR") throw error;
      throw new RedisUnavailableError(
        "disconnected",
        `cannot subscribe to ${JSON.stringify(channel)}: ${String(error)}`,
      );
    }
  }

  /**
   * Closes the connection.
   *
   * @example
   * subscriber.close();
   */
  close(): void {
    this.#client.onconnect = null;
    this.#client.close();
  }
}
