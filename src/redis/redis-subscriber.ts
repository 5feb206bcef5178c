import { RedisClient } from "bun";
import { RedisConnection } from "./redis-connection.ts";

/**
 * The one connection of a process that listens for Redis pub/sub messages (a subscribed
 * connection can send nothing else). Each subscribed channel has one listener. After a lost
 * connection comes back it subscribes again and calls every listener once, since messages sent
 * while it was away are lost: a listener that re-reads its source then misses nothing.
 *
 * @example
 * const subscriber = await RedisSubscriber.open({ url: "redis://127.0.0.1:6379" });
 * await subscriber.subscribe("jobs", () => channel.notifier.notify());
 */
export class RedisSubscriber {
  readonly #client: RedisClient;
  readonly #listeners = new Map<string, (message?: string) => void>();
  #connects = 0;

  private constructor(client: RedisClient) {
    this.#client = client;
    client.onconnect = () => {
      if (++this.#connects === 1) return;
      for (const [channel, listener] of this.#listeners) {
        this.#client.subscribe(channel, listener).catch(() => {
          // Lost again at once: the next connect subscribes again.
        });
        listener();
      }
    };
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
   * after each reconnect (without one: messages sent while away are lost).
   *
   * @example
   * await subscriber.subscribe("jobs", () => notifier.notify());
   */
  async subscribe(channel: string, listener: (message?: string) => void): Promise<void> {
    if (this.#listeners.has(channel)) {
      throw new TypeError(
        `corral: Redis channel ${JSON.stringify(channel)} already has a listener`,
      );
    }
    this.#listeners.set(channel, listener);
    await this.#client.subscribe(channel, (message: string) => listener(message));
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
