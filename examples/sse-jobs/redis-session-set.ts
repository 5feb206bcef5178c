import { type RedisConnection, RedisSessionStore, SessionStoreFullError } from "corral";
import type { SessionBook } from "./job-backend.ts";
import type { Session } from "./session-set.ts";

/**
 * Options of {@link RedisSessionSet}.
 *
 * @example
 * const options: RedisSessionSetOptions = { redis, capacity: 1024, ttlMs: 3_600_000 };
 */
export interface RedisSessionSetOptions {
  readonly redis: RedisConnection;
  /** Sessions held at most across every instance; a new one past it ends the oldest. */
  readonly capacity: number;
  /** Fixed lifetime, kept by Redis key expiry. */
  readonly ttlMs: number;
}

/**
 * The example's sessions on Redis: every instance on the same Redis sees a login, a logout and
 * an expiry at once. The tokens, their hashing and the expiry are `RedisSessionStore`'s; this
 * gives its sessions the shape the routes use (`key` is the token's SHA-256, the jobs' owner).
 *
 * @example
 * const sessions = new RedisSessionSet({ redis, capacity: 1024, ttlMs: 3_600_000 });
 * const session = await sessions.find(ctx.request.cookie("sid"));
 */
export class RedisSessionSet implements SessionBook {
  readonly ttlMs: number;
  readonly #store: RedisSessionStore<true>;
  // The token a session was found by: each liveness check asks Redis about it again.
  readonly #tokens = new WeakMap<Session, string>();

  constructor(options: RedisSessionSetOptions) {
    this.ttlMs = options.ttlMs;
    this.#store = new RedisSessionStore<true>({
      redis: options.redis,
      prefix: "corral:sse-jobs-example:",
      capacity: options.capacity,
      lifetimeMs: options.ttlMs,
    });
  }

  /** `undefined` when `capacity` sessions are held: the caller answers 503 (nobody is evicted). */
  async create(): Promise<{ readonly token: string; readonly session: Session } | undefined> {
    let created: Awaited<ReturnType<RedisSessionStore<true>["create"]>>;
    try {
      created = await this.#store.create(true);
    } catch (error) {
      if (error instanceof SessionStoreFullError) return undefined;
      throw error;
    }
    return { token: created.token, session: this.#shape(created.token, created.expiresAtMs) };
  }

  async find(token: string | undefined): Promise<Session | undefined> {
    const found = await this.#store.get(token);
    return found === undefined ? undefined : this.#shape(found.token, found.expiresAtMs);
  }

  async isLive(session: Session | undefined): Promise<boolean> {
    const token = session === undefined ? undefined : this.#tokens.get(session);
    return token !== undefined && (await this.#store.get(token)) !== undefined;
  }

  async revoke(session: Session): Promise<void> {
    await this.#store.revoke(this.#tokens.get(session));
  }

  #shape(token: string, expiresAt: number): Session {
    const session: Session = {
      key: new Bun.CryptoHasher("sha256").update(token).digest("hex"),
      expiresAt,
    };
    this.#tokens.set(session, token);
    return session;
  }
}
