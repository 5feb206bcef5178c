import type { EngineStats } from "corral/engine";
import { RedisConnection } from "./redis-connection.ts";
import { RedisSubscriber } from "./redis-subscriber.ts";

/**
 * The Redis counters of one App: those of every `RedisConnection` and `RedisSubscriber` given to
 * `app.includeRedisStats()`, summed. All numbers, so that the counters of a group of processes
 * (`serve()`) add up field by field like the engine's.
 *
 * @example
 * const { reconnects, connected, connections } = app.stats().redis ?? {};
 */
export interface RedisStats {
  /** Command connections included. */
  readonly connections: number;
  /** Of those, connected now: fewer than `connections` while Redis is away. */
  readonly connected: number;
  /** Command connections made again after a loss (automatic). */
  readonly reconnects: number;
  /** Commands sent and not yet answered. */
  readonly pendingCommands: number;
  /** Commands refused because `maxPendingCommands` were pending (each a 503). */
  readonly rejectedBusy: number;
  /** Commands refused because there was no connection (each a 503). */
  readonly rejectedDisconnected: number;
  /** Commands that got no answer within `commandTimeoutMs`. */
  readonly timeouts: number;
  /** Commands Redis refused for a while: out of memory, read-only, loading, ... (each a 503). */
  readonly refusedByRedis: number;
  /** Pub/sub subscribers included. */
  readonly subscribers: number;
  /** Subscriber connections made again after a loss (automatic). */
  readonly subscriberReconnects: number;
}

/**
 * The engine's counters and, once the App includes a Redis connection, its Redis counters.
 *
 * @example
 * const stats: AppStats = app.stats();
 * console.log(stats.requests, stats.redis?.reconnects);
 */
export interface AppStats extends EngineStats {
  /** Present once `app.includeRedisStats()` was called. */
  readonly redis?: RedisStats;
}

/** The Redis connections and subscribers one App counts in its `stats()`. */
export class RedisCounters {
  readonly #connections = new Set<RedisConnection>();
  readonly #subscribers = new Set<RedisSubscriber>();

  /** Counts `source` from now on; the same one twice counts once. */
  include(source: RedisConnection | RedisSubscriber): void {
    if (source instanceof RedisConnection) this.#connections.add(source);
    else if (source instanceof RedisSubscriber) this.#subscribers.add(source);
    else {
      throw new TypeError(
        `corral: includeRedisStats takes a RedisConnection or a RedisSubscriber, got ${String(source)}`,
      );
    }
  }

  stats(): RedisStats {
    let connected = 0;
    let reconnects = 0;
    let pendingCommands = 0;
    let rejectedBusy = 0;
    let rejectedDisconnected = 0;
    let timeouts = 0;
    let refusedByRedis = 0;
    for (const connection of this.#connections) {
      const stats = connection.stats();
      if (stats.connected) connected++;
      reconnects += stats.reconnects;
      pendingCommands += stats.pendingCommands;
      rejectedBusy += stats.rejectedBusy;
      rejectedDisconnected += stats.rejectedDisconnected;
      timeouts += stats.timeouts;
      refusedByRedis += stats.refusedByRedis;
    }
    let subscriberReconnects = 0;
    for (const subscriber of this.#subscribers) subscriberReconnects += subscriber.reconnects;
    return {
      connections: this.#connections.size,
      connected,
      reconnects,
      pendingCommands,
      rejectedBusy,
      rejectedDisconnected,
      timeouts,
      refusedByRedis,
      subscribers: this.#subscribers.size,
      subscriberReconnects,
    };
  }
}
