import { type Io, systemIo } from "../io.ts";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import type { RedisConnection } from "../redis/redis-connection.ts";
import { createScript, getScript, revokeScript } from "./redis-session-scripts.ts";
import { frozenSessionData, sessionJson } from "./session-data.ts";
import { SessionStoreFullError } from "./session-errors.ts";
import type { SessionStorage } from "./session-storage.ts";
import type { Session } from "./session-store.ts";
import { decodeSessionToken, generateSessionToken, sessionTokenBytes } from "./session-token.ts";

const redisSessionStoreOptionNames = optionNames<RedisSessionStoreOptions<unknown>>({
  redis: true,
  capacity: true,
  lifetimeMs: true,
  prefix: true,
  io: true,
  perOwner: true,
});

/**
 * Options of `new RedisSessionStore()`.
 *
 * @example
 * const options: RedisSessionStoreOptions<{ user: string }> = { redis, capacity: 100_000, lifetimeMs: 1_800_000 };
 */
export interface RedisSessionStoreOptions<Data> {
  /** The process's connection to Redis (`RedisConnection.open`). */
  readonly redis: RedisConnection;
  /** The most sessions held at once, across every instance sharing the prefix. */
  readonly capacity: number;
  /** How long a session lives from its creation, in whole milliseconds; never extended. */
  readonly lifetimeMs: number;
  /** Prefix of every key; `"corral:session:"` by default. Give each App its own. */
  readonly prefix?: string;
  /** Randomness for tokens and the monotonic clock of `expiresAtMs`; `systemIo` by default. */
  readonly io?: Io;
  /**
   * A cap per owner (a user, say) across every instance: a new session past `maxSessions`
   * ends that owner's oldest first, so one account cannot fill the store. None by default.
   */
  readonly perOwner?: {
    readonly ownerOf: (data: Data) => string;
    readonly maxSessions: number;
  };
}

/**
 * Sessions held in Redis, shared by every process and machine that uses the same Redis and
 * prefix: a login on one instance is valid on all, a logout ends it on all at once.
 *
 * Each session is one key named by the SHA-256 digest of its token (a copy of Redis's memory
 * holds no usable token), holding the data as JSON, with a Redis expiry of exactly `lifetimeMs`
 * set at creation and never extended, so expiry is decided by the Redis server's clock. A sorted
 * set of expiry times bounds the count at `capacity`: a create past it rejects with
 * `SessionStoreFullError` and evicts nobody. Data must survive `JSON.stringify` (anything else is
 * a `TypeError` at `create`); what `create` and `get` return is read back from it, deeply frozen.
 *
 * When Redis cannot answer (down, too many commands pending, too slow), every method rejects
 * with `RedisUnavailableError`, an HttpError 503: a session check fails closed.
 *
 * @example
 * const redis = await RedisConnection.open({ url: "redis://127.0.0.1:6379" });
 * const sessions = new RedisSessionStore<{ user: string }>({ redis, capacity: 10_000, lifetimeMs: 3_600_000 });
 * const { token } = await sessions.create({ user: "ada" });
 * (await sessions.get(token))?.data.user; // "ada", on every instance
 */
export class RedisSessionStore<Data> implements SessionStorage<Data> {
  readonly capacity: number;
  readonly lifetimeMs: number;
  readonly prefix: string;
  readonly #redis: RedisConnection;
  readonly #io: Io;
  readonly #indexKey: string;
  readonly #perOwner: RedisSessionStoreOptions<Data>["perOwner"];
  #displaced = 0;
  readonly #hasher = new Bun.CryptoHasher("sha256");

  constructor(options: RedisSessionStoreOptions<Data>) {
    refuseUnknownOptions(options, redisSessionStoreOptionNames, "new RedisSessionStore()");
    const { capacity, lifetimeMs } = options;
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(
        `corral: session store capacity must be a whole number >= 1, got ${capacity}`,
      );
    }
    if (!Number.isSafeInteger(lifetimeMs) || lifetimeMs < 1) {
      throw new RangeError(
        `corral: session lifetimeMs must be a whole number of milliseconds >= 1, got ${lifetimeMs}`,
      );
    }
    this.capacity = capacity;
    this.lifetimeMs = lifetimeMs;
    this.prefix = options.prefix ?? "corral:session:";
    this.#redis = options.redis;
    this.#io = options.io ?? systemIo;
    this.#indexKey = `${this.prefix}expiry`;
    const maxPerOwner = options.perOwner?.maxSessions;
    if (maxPerOwner !== undefined && (!Number.isSafeInteger(maxPerOwner) || maxPerOwner < 1)) {
      throw new RangeError(
        `corral: perOwner.maxSessions must be a whole number >= 1, got ${maxPerOwner}`,
      );
    }
    this.#perOwner = options.perOwner;
  }

  /** Sessions this instance ended because their owner started one more than `perOwner` allows. */
  get displaced(): number {
    return this.#displaced;
  }

  async create(data: Data): Promise<Session<Data>> {
    const json = sessionJson(data);
    const bytes = new Uint8Array(sessionTokenBytes);
    const token = generateSessionToken(this.#io, bytes);
    const digest = this.#digest(bytes);
    const reply = (await this.#redis.command("EVAL", [
      createScript,
      "3",
      this.#sessionKey(digest),
      this.#indexKey,
      `${this.prefix}owner:${this.#perOwner?.ownerOf(data) ?? ""}`,
      json,
      String(this.lifetimeMs),
      String(this.capacity),
      digest,
      String(this.#perOwner?.maxSessions ?? 0),
      this.#sessionKey(""),
    ])) as [number, number, number];
    const [outcome, untilFreeMs, displaced] = reply;
    this.#displaced += displaced;
    if (outcome === 0) {
      throw new SessionStoreFullError(this.capacity, Math.max(1, Math.ceil(untilFreeMs / 1000)));
    }
    if (outcome === -1) {
      throw new Error("corral: Io.randomBytes produced a session token that is already in use");
    }
    const now = this.#io.monotonicNow();
    return {
      token,
      data: frozenSessionData<Data>(json),
      expiresAtMs: now + this.lifetimeMs,
      remainingMs: this.lifetimeMs,
    };
  }

  async get(token: string | undefined): Promise<Session<Data> | undefined> {
    const digest = this.#digestOf(token);
    if (digest === undefined) return undefined;
    const reply = (await this.#redis.command("EVAL", [getScript, "1", this.#sessionKey(digest)])) as
      | [string, number]
      | null;
    if (reply === null) return undefined;
    const [json, remainingMs] = reply;
    // PTTL is -1 for a key without expiry and -2 once gone; neither is a valid session here.
    if (remainingMs < 1) return undefined;
    return {
      token: token as string,
      data: frozenSessionData<Data>(json),
      expiresAtMs: this.#io.monotonicNow() + remainingMs,
      remainingMs,
    };
  }

  async revoke(token: string | undefined): Promise<boolean> {
    const digest = this.#digestOf(token);
    if (digest === undefined) return false;
    const deleted = await this.#redis.command("EVAL", [
      revokeScript,
      "2",
      this.#sessionKey(digest),
      this.#indexKey,
      digest,
    ]);
    return deleted === 1;
  }

  #digestOf(token: string | undefined): string | undefined {
    if (typeof token !== "string") return undefined;
    const bytes = decodeSessionToken(token);
    return bytes === undefined ? undefined : this.#digest(bytes);
  }

  #digest(bytes: Uint8Array): string {
    this.#hasher.update(bytes);
    return this.#hasher.digest("base64url");
  }

  #sessionKey(digest: string): string {
    return `${this.prefix}s:${digest}`;
  }
}
