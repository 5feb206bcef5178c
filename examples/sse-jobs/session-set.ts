import type { Io } from "corral";

/**
 * One browser's session. The set keys it by the SHA-256 of its token, never the token itself.
 *
 * @example
 * const session: Session = { key: "9f86d0…", expiresAt: 3_600_000 };
 */
export interface Session {
  /** Hex SHA-256 of the cookie's token. */
  readonly key: string;
  /** When it stops being valid, on the Io's monotonic clock. */
  readonly expiresAt: number;
}

/**
 * Options of {@link SessionSet}.
 *
 * @example
 * const options: SessionSetOptions = { io: systemIo, capacity: 1024, ttlMs: 3_600_000 };
 */
export interface SessionSetOptions {
  readonly io: Io;
  /** Live sessions held at most; when full, the oldest one not pinned makes room. */
  readonly capacity: number;
  /** Fixed lifetime of a session from its creation. */
  readonly ttlMs: number;
  /** Whether a session must not be evicted to make room (it owns a running job); none by default. */
  readonly pinned?: (session: Session) => boolean;
}

// 32 random bytes in base64url: 43 characters, all valid in a cookie value (RFC 6265 §4.1.1).
const tokenBytes = 32;
const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * The example's session store: a bounded in-memory set of opaque random tokens with a fixed
 * expiry and explicit revocation. Only each token's hash is kept, so neither a look-up's timing
 * nor the set's memory gives away a value that could be replayed as a cookie.
 *
 * A full set evicts its oldest session that is not pinned, so strangers who start sessions
 * cannot fill it against everyone else: only pinned sessions (those with a running job, at most
 * one per job slot) are safe from eviction.
 *
 * @example
 * const sessions = new SessionSet({ io: systemIo, capacity: 1024, ttlMs: 3_600_000 });
 * const created = sessions.create(); // undefined only when every session held is pinned
 * sessions.find(created?.token); // the session, until revoked or expired
 */
export class SessionSet {
  readonly capacity: number;
  readonly ttlMs: number;
  readonly #io: Io;
  readonly #pinned: (session: Session) => boolean;
  // Insertion order is expiry order: every session lives exactly ttlMs.
  readonly #sessions = new Map<string, Session>();
  #evicted = 0;

  constructor(options: SessionSetOptions) {
    for (const name of ["capacity", "ttlMs"] as const) {
      if (!Number.isSafeInteger(options[name]) || options[name] < 1) {
        throw new TypeError(`sse-jobs: ${name} must be a whole number >= 1, got ${options[name]}`);
      }
    }
    this.capacity = options.capacity;
    this.ttlMs = options.ttlMs;
    this.#io = options.io;
    this.#pinned = options.pinned ?? (() => false);
  }

  /**
   * Live sessions evicted to make room for new ones, since the set was made.
   *
   * @example
   * sessions.evicted; // 0 until the set is full
   */
  get evicted(): number {
    return this.#evicted;
  }

  /**
   * Sessions held now, expired ones not yet dropped included.
   *
   * @example
   * sessions.size; // 0 at first
   */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Starts a session and returns it with the token for its cookie. When the set is full, its
   * oldest session that is not pinned is evicted first; `undefined` when every one is pinned.
   *
   * @example
   * const created = sessions.create();
   * if (created) ctx.response.setCookie("sid", created.token, { httpOnly: true });
   */
  create(): { readonly token: string; readonly session: Session } | undefined {
    this.#dropExpired();
    if (this.#sessions.size >= this.capacity && !this.#evictOldestUnpinned()) return undefined;
    const token = Buffer.from(this.#io.randomBytes(new Uint8Array(tokenBytes))).toString(
      "base64url",
    );
    const session: Session = {
      key: hashToken(token),
      expiresAt: this.#io.monotonicNow() + this.ttlMs,
    };
    this.#sessions.set(session.key, session);
    return { token, session };
  }

  /**
   * The live session a cookie's token names, or `undefined`.
   *
   * @example
   * const session = sessions.find(ctx.request.cookie("sid"));
   */
  find(token: string | undefined): Session | undefined {
    if (token === undefined || !tokenPattern.test(token)) return undefined;
    const session = this.#sessions.get(hashToken(token));
    return this.isLive(session) ? session : undefined;
  }

  /**
   * Whether `session` is still held and not expired: checked again on every resumed stream step.
   *
   * @example
   * if (!sessions.isLive(ctx.locals.session)) return false;
   */
  isLive(session: Session | undefined): session is Session {
    return (
      session !== undefined &&
      this.#sessions.get(session.key) === session &&
      this.#io.monotonicNow() < session.expiresAt
    );
  }

  /**
   * Ends `session` now (logout); later look-ups and liveness checks fail.
   *
   * @example
   * sessions.revoke(session);
   */
  revoke(session: Session): void {
    if (this.#sessions.get(session.key) === session) this.#sessions.delete(session.key);
  }

  // Pinned sessions are few (one per running job), so the scan stops after a few steps.
  #evictOldestUnpinned(): boolean {
    for (const session of this.#sessions.values()) {
      if (this.#pinned(session)) continue;
      this.#sessions.delete(session.key);
      this.#evicted++;
      return true;
    }
    return false;
  }

  #dropExpired(): void {
    const now = this.#io.monotonicNow();
    for (const session of this.#sessions.values()) {
      if (session.expiresAt > now) break;
      this.#sessions.delete(session.key);
    }
  }
}

function hashToken(token: string): string {
  return new Bun.CryptoHasher("sha256").update(token).digest("hex");
}
