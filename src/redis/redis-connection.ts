import { RedisClient } from "bun";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import { RedisUnavailableError } from "./redis-unavailable-error.ts";

const redisConnectionOptionNames = optionNames<RedisConnectionOptions>({
  url: true,
  maxPendingCommands: true,
  commandTimeoutMs: true,
  connectTimeoutMs: true,
});

/**
 * Options of `RedisConnection.open()`.
 *
 * @example
 * const options: RedisConnectionOptions = { url: "redis://127.0.0.1:6379", commandTimeoutMs: 500 };
 */
export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  readonly url: string;
  /** Commands sent and not yet answered, at most; one more is a 503 at once. Default 1024. */
  readonly maxPendingCommands?: number;
  /** How long a command may wait for its answer before it fails with a 503. Default 1000 ms. */
  readonly commandTimeoutMs?: number;
  /** How long the first connection may take before `open()` fails. Default 2000 ms. */
  readonly connectTimeoutMs?: number;
}

/**
 * Counters of one `RedisConnection`.
 *
 * @example
 * const { connected, reconnects } = connection.stats();
 */
export interface RedisConnectionStats {
  readonly connected: boolean;
  /** Connections made again after a loss (automatic). */
  readonly reconnects: number;
  /** Commands sent and not yet answered. */
  readonly pendingCommands: number;
  /** Commands refused because `maxPendingCommands` were pending. */
  readonly rejectedBusy: number;
  /** Commands refused because there was no connection. */
  readonly rejectedDisconnected: number;
  /** Commands that got no answer within `commandTimeoutMs`. */
  readonly timeouts: number;
  /** Commands Redis itself refused for a while: out of memory, read-only, loading, ... */
  readonly refusedByRedis: number;
}

/**
 * The error codes by which Redis refuses a command for a while, whatever the command: `OOM`
 * (`maxmemory` reached under `noeviction`), `READONLY` (a replica), `MISCONF` (a failed snapshot
 * stops writes), `LOADING`, `BUSY` (a script running), `MASTERDOWN`, `NOREPLICAS`, `TRYAGAIN`,
 * `CLUSTERDOWN`. The store is unavailable then, as when it is unreachable: a 503, not a 500.
 */
const refusalCodes: ReadonlySet<string> = new Set([
  "OOM",
  "READONLY",
  "MISCONF",
  "LOADING",
  "BUSY",
  "MASTERDOWN",
  "NOREPLICAS",
  "TRYAGAIN",
  "CLUSTERDOWN",
]);

/** Whether a Redis error reply (`CODE message`, a script's too) is a refusal for a while. */
function isRefusal(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  const space = message.indexOf(" ");
  return refusalCodes.has(space < 0 ? message : message.slice(0, space));
}

/** The URL with any password replaced, for error messages and logs. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an invalid URL)";
  }
}

function wholeNumber(value: number | undefined, fallback: number, name: string): number {
  const result = value ?? fallback;
  if (!Number.isSafeInteger(result) || result < 1) {
    throw new TypeError(`corral: Redis ${name} must be a whole number >= 1, got ${value}`);
  }
  return result;
}

/**
 * One connection to Redis (or Valkey) shared by everything in a process that uses it, with
 * bounds: commands are pipelined on the single connection, at most `maxPendingCommands` wait for
 * an answer (one more is refused with a 503, never buffered), each fails after
 * `commandTimeoutMs`, and while the connection is down commands fail at once (no offline queue)
 * while it reconnects on its own. Every failure is a `RedisUnavailableError` (an HttpError 503),
 * and so is Redis refusing a command for a while (out of memory, read-only, ...).
 *
 * @example
 * const redis = await RedisConnection.open({ url: "redis://127.0.0.1:6379" }); // throws if unreachable
 * await redis.command("SET", ["greeting", "hello"]);
 * redis.stats().reconnects; // 0
 */
export class RedisConnection {
  /** The URL, with any password hidden. */
  readonly url: string;
  readonly maxPendingCommands: number;
  readonly commandTimeoutMs: number;
  readonly #client: RedisClient;
  #connects = 0;
  readonly #reconnectListeners = new Set<() => void>();
  #pending = 0;
  #rejectedBusy = 0;
  #rejectedDisconnected = 0;
  #timeouts = 0;
  #refusedByRedis = 0;

  private constructor(options: RedisConnectionOptions) {
    refuseUnknownOptions(options, redisConnectionOptionNames, "RedisConnection.open()");
    this.url = redactUrl(options.url);
    this.maxPendingCommands = wholeNumber(options.maxPendingCommands, 1024, "maxPendingCommands");
    this.commandTimeoutMs = wholeNumber(options.commandTimeoutMs, 1000, "commandTimeoutMs");
    this.#client = new RedisClient(options.url, {
      connectionTimeout: wholeNumber(options.connectTimeoutMs, 2000, "connectTimeoutMs"),
      // Fail at once while disconnected rather than queue without bound; keep reconnecting.
      enableOfflineQueue: false,
      autoReconnect: true,
      maxRetries: 4_294_967_295,
    });
    this.#client.onconnect = () => {
      if (++this.#connects === 1) return;
      for (const listener of this.#reconnectListeners) listener();
    };
  }

  /**
   * Connects to `options.url` and resolves once connected; rejects with a one-line
   * `RedisUnavailableError` ("unreachable") when Redis cannot be reached at start.
   *
   * @example
   * const redis = await RedisConnection.open({ url: "redis://127.0.0.1:6379" });
   */
  static async open(options: RedisConnectionOptions): Promise<RedisConnection> {
    const connection = new RedisConnection(options);
    const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The client retries a refused connection on its own; at start, one failure is the answer.
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no connection within ${connectTimeoutMs} ms`)),
        connectTimeoutMs,
      );
    });
    try {
      await Promise.race([connection.#connect(), timeout, refusal(options.url)]);
    } catch (error) {
      connection.close();
      const detail = error instanceof Error ? error.message : String(error);
      throw new RedisUnavailableError(
        "unreachable",
        `cannot reach Redis at ${connection.url}: ${detail}`,
      );
    } finally {
      clearTimeout(timer);
    }
    return connection;
  }

  async #connect(): Promise<void> {
    await this.#client.connect();
    await this.#client.send("PING", []);
  }

  /**
   * Sends one command and resolves with its reply, or rejects with `RedisUnavailableError`
   * (busy, disconnected, timeout, or `refused`: an `OOM`, `READONLY`, `MISCONF`, ... reply). Any
   * other error reply from Redis rejects with Bun's `RedisError`.
   *
   * @example
   * const value = await redis.command("GET", ["greeting"]);
   */
  command(name: string, args: readonly string[]): Promise<unknown> {
    if (this.#pending >= this.maxPendingCommands) {
      this.#rejectedBusy++;
      return Promise.reject(
        new RedisUnavailableError("busy", `${this.maxPendingCommands} Redis commands pending`),
      );
    }
    if (!this.#client.connected) {
      this.#rejectedDisconnected++;
      return Promise.reject(
        new RedisUnavailableError("disconnected", `no connection to ${this.url}`),
      );
    }
    this.#pending++;
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    const timer = setTimeout(() => {
      this.#timeouts++;
      reject(new RedisUnavailableError("timeout", `${name} took over ${this.commandTimeoutMs} ms`));
    }, this.commandTimeoutMs);
    // The command counts as pending until Redis answers or the connection drops, even after its
    // caller gave up: that is what bounds the bytes waiting on the connection.
    this.#client.send(name, [...args]).then(
      (reply) => {
        this.#pending--;
        clearTimeout(timer);
        resolve(reply);
      },
      (error: unknown) => {
        this.#pending--;
        clearTimeout(timer);
        const code = (error as { code?: string }).code;
        if (code !== "ERR_REDIS_SERVER_ERROR") {
          reject(new RedisUnavailableError("disconnected", String(error)));
        } else if (isRefusal(error)) {
          this.#refusedByRedis++;
          reject(new RedisUnavailableError("refused", `${name}: ${(error as Error).message}`));
        } else {
          reject(error);
        }
      },
    );
    return promise;
  }

  /**
   * Calls `listener` each time the connection comes back after a loss (not on the first
   * connect): readers that failed meanwhile can try again now.
   *
   * @example
   * redis.onReconnect(() => notifier.notify());
   */
  onReconnect(listener: () => void): void {
    this.#reconnectListeners.add(listener);
  }

  /**
   * The connection's counters.
   *
   * @example
   * redis.stats(); // { connected: true, reconnects: 0, pendingCommands: 0, ... }
   */
  stats(): RedisConnectionStats {
    return {
      connected: this.#client.connected,
      reconnects: Math.max(0, this.#connects - 1),
      pendingCommands: this.#pending,
      rejectedBusy: this.#rejectedBusy,
      rejectedDisconnected: this.#rejectedDisconnected,
      timeouts: this.#timeouts,
      refusedByRedis: this.#refusedByRedis,
    };
  }

  /**
   * Closes the connection; commands fail afterwards.
   *
   * @example
   * redis.close();
   */
  close(): void {
    this.#client.onconnect = null;
    this.#client.close();
  }
}

/**
 * Rejects at once when nothing listens at the URL's host and port (the connection is refused);
 * otherwise never settles. Bun's client retries a refused connection on its own and tells
 * nothing of it, so without this an address with no Redis waited the whole `connectTimeoutMs`.
 */
function refusal(url: string): Promise<never> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return new Promise<never>(() => {});
  }
  if (target.protocol !== "redis:" && target.protocol !== "rediss:") {
    return new Promise<never>(() => {});
  }
  const hostname = target.hostname.replace(/^\[(.*)\]$/, "$1") || "127.0.0.1";
  const port = Number(target.port || "6379");
  return new Promise<never>((_resolve, reject) => {
    Bun.connect({
      hostname,
      port,
      socket: { open: (socket) => void socket.end(), data() {} },
    }).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === "ECONNREFUSED")
        reject(new Error("connection refused"));
    });
  });
}
