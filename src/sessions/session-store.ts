import { type Io, systemIo } from "../io.ts";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import { constantTimeEqual } from "./constant-time-equal.ts";
import { frozenSessionData, sessionJson } from "./session-data.ts";
import { SessionStoreFullError } from "./session-errors.ts";
import type { SessionStorage } from "./session-storage.ts";
import { decodeSessionToken, generateSessionToken, sessionTokenBytes } from "./session-token.ts";

const sessionStoreOptionNames = optionNames<SessionStoreOptions>({
  capacity: true,
  lifetimeMs: true,
  io: true,
});

/**
 * Options of `new SessionStore()`.
 *
 * @example
 * const options: SessionStoreOptions = { capacity: 10_000, lifetimeMs: 30 * 60_000, io: app.io };
 */
export interface SessionStoreOptions {
  /** The most sessions held at once, 1 to `maxSessionCapacity`; every slot is reserved now. */
  readonly capacity: number;
  /** How long a session lives from its creation, in whole milliseconds; never extended. */
  readonly lifetimeMs: number;
  /** The clock and randomness; `systemIo` by default. Give the App's `io` so tests can move time. */
  readonly io?: Io;
}

/**
 * A valid session as `create` or `get` returned it: a snapshot, with the remaining lifetime
 * measured at that moment.
 *
 * @example
 * const session: Session<{ user: string }> | undefined = await store.get(token);
 * if (session) console.log(session.data.user, session.remainingMs);
 */
export interface Session<Data> {
  /** The secret token: 43 characters of base64url carrying 256 random bits. */
  readonly token: string;
  /**
   * What the application stored with the session, as read back from its JSON and deeply frozen:
   * a session's data never changes (start a new session to change it), so changing this object
   * is a `TypeError`, in either store.
   */
  readonly data: Data;
  /** When it expires, on the monotonic clock (`io.monotonicNow()`). */
  readonly expiresAtMs: number;
  /** Milliseconds left until it expires, at least 1. */
  readonly remainingMs: number;
}

/**
 * The largest capacity a store accepts. Each slot reserves about 70 bytes up front (token,
 * expiry, list links, references); an occupied one also holds its data and one index entry.
 *
 * @example
 * new SessionStore({ capacity: maxSessionCapacity, lifetimeMs: 60_000 }); // over 1 GiB reserved
 */
export const maxSessionCapacity = 16_777_216;

const noSlot = -1;

/**
 * A fixed-capacity server-side session store. All slots are reserved at construction and the
 * store never grows: when every slot holds a valid session, `create` throws
 * `SessionStoreFullError` instead of evicting anyone.
 *
 * Tokens are 256 random bits from the `Io`, handed out as 43 base64url characters. A session
 * expires exactly `lifetimeMs` after its creation: valid while `now < expiresAtMs`, gone from
 * `now >= expiresAtMs`, and using it never extends it (no sliding renewal). Time is read from the
 * `Io`'s monotonic clock, not the wall clock: sessions live only in this process's memory, and a
 * wall clock stepped back or forward (NTP, an operator) would lengthen or cut every session.
 * Cookies carry the remaining lifetime as a relative `Max-Age`, so no wall time is needed.
 *
 * The data is kept as `RedisSessionStore` keeps it: read back from its JSON (so it must survive
 * `JSON.stringify`; anything else is a `TypeError` at `create`) and deeply frozen.
 *
 * Expired sessions are removed lazily (when `get` or `revoke` meets one, and from the oldest end
 * on every `create`) and by `sweep()`. Because the lifetime is fixed and the clock monotonic,
 * creation order is expiry order, so each removal of an expired session costs O(1).
 *
 * @example
 * const sessions = new SessionStore<{ user: string }>({ capacity: 1000, lifetimeMs: 3_600_000 });
 * const { token } = await sessions.create({ user: "ada" }); // may reject: SessionStoreFullError
 * (await sessions.get(token))?.data.user; // "ada", until it expires or is revoked
 * await sessions.revoke(token); // logout: true
 */
export class SessionStore<Data> implements SessionStorage<Data> {
  /** The most sessions held at once. */
  readonly capacity: number;
  /** How long each session lives from its creation, in milliseconds. */
  readonly lifetimeMs: number;
  readonly #io: Io;
  /** The token bytes of slot `i` at `i * 32`; zeroed when the slot is freed. */
  readonly #tokens: Uint8Array;
  readonly #expiresAt: Float64Array;
  readonly #indexKeys: Array<string | undefined>;
  readonly #data: Array<Data | undefined>;
  // The index is keyed by the SHA-256 digest of a token, never by the token itself. A Map lookup
  // compares keys with ordinary string equality, which stops at the first differing character and
  // takes longer the longer the common prefix: keyed by the secret, the response time would tell
  // an attacker how much of a guess matched, and a token could be found character by character.
  // Keyed by a digest, the same timing only says how much of the digest of the attacker's own
  // guess matches a stored digest, which reveals nothing about any token (SHA-256 is preimage
  // resistant). The slot found is then confirmed with a constant-time compare of the full token.
  // The Map holds one entry per occupied slot, so it is bounded by the capacity.
  readonly #index = new Map<string, number>();
  readonly #hasher = new Bun.CryptoHasher("sha256");
  readonly #freeSlots: Int32Array;
  #freeCount: number;
  // Occupied slots in creation order (which is expiry order), as a doubly linked list.
  readonly #newer: Int32Array;
  readonly #older: Int32Array;
  #oldest = noSlot;
  #newest = noSlot;

  constructor(options: SessionStoreOptions) {
    refuseUnknownOptions(options, sessionStoreOptionNames, "new SessionStore()");
    const { capacity, lifetimeMs } = options;
    if (!Number.isSafeInteger(capacity) || capacity < 1 || capacity > maxSessionCapacity) {
      throw new RangeError(
        `corral: session store capacity must be a whole number from 1 to ${maxSessionCapacity}, got ${capacity}`,
      );
    }
    if (!Number.isSafeInteger(lifetimeMs) || lifetimeMs < 1) {
      throw new RangeError(
        `corral: session lifetimeMs must be a whole number of milliseconds >= 1, got ${lifetimeMs}`,
      );
    }
    this.capacity = capacity;
    this.lifetimeMs = lifetimeMs;
    this.#io = options.io ?? systemIo;
    this.#tokens = new Uint8Array(capacity * sessionTokenBytes);
    this.#expiresAt = new Float64Array(capacity);
    this.#indexKeys = new Array<string | undefined>(capacity).fill(undefined);
    this.#data = new Array<Data | undefined>(capacity).fill(undefined);
    this.#newer = new Int32Array(capacity).fill(noSlot);
    this.#older = new Int32Array(capacity).fill(noSlot);
    this.#freeSlots = new Int32Array(capacity);
    // Hand out slot 0 first: the stack is filled from the top.
    for (let slot = 0; slot < capacity; slot++) this.#freeSlots[slot] = capacity - 1 - slot;
    this.#freeCount = capacity;
  }

  /** Slots in use, counting expired sessions not yet removed (`sweep()` first for live ones). */
  get size(): number {
    return this.capacity - this.#freeCount;
  }

  /**
   * Starts a session holding `data` and returns it with its new token. Expired sessions are
   * removed first; if every slot still holds a valid session, rejects with `SessionStoreFullError`.
   *
   * @example
   * const session = await sessions.create({ user: "ada" });
   * cookie.set(ctx.response, session);
   */
  async create(data: Data): Promise<Session<Data>> {
    const stored = frozenSessionData<Data>(sessionJson(data));
    const now = this.#io.monotonicNow();
    this.#removeExpired(now);
    if (this.#freeCount === 0) {
      const untilFree = this.#expiresAt[this.#oldest]! - now;
      throw new SessionStoreFullError(this.capacity, Math.max(1, Math.ceil(untilFree / 1000)));
    }
    const slot = this.#freeSlots[--this.#freeCount]!;
    const bytes = this.#tokenAt(slot);
    const token = generateSessionToken(this.#io, bytes);
    const key = this.#digest(bytes);
    if (this.#index.has(key)) {
      // 256 random bits never repeat; a repeat means the Io's randomness is broken (a test stub
      // returning fixed bytes, say), and reusing the token would hand one session to two people.
      bytes.fill(0);
      this.#freeSlots[this.#freeCount++] = slot;
      throw new Error("corral: Io.randomBytes produced a session token that is already in use");
    }
    const expiresAtMs = now + this.lifetimeMs;
    this.#index.set(key, slot);
    this.#indexKeys[slot] = key;
    this.#data[slot] = stored;
    this.#expiresAt[slot] = expiresAtMs;
    this.#append(slot);
    return { token, data: stored, expiresAtMs, remainingMs: this.lifetimeMs };
  }

  /**
   * The valid session `token` names, or `undefined` when there is none: an absent, malformed,
   * unknown, revoked or expired token (an expired one is removed now). Never extends the session.
   *
   * @example
   * const session = await sessions.get(ctx.request.cookie("session"));
   * if (!session) return ctx.response.redirect(303, "/login");
   */
  async get(token: string | undefined): Promise<Session<Data> | undefined> {
    const slot = this.#find(token);
    if (slot === noSlot) return undefined;
    const now = this.#io.monotonicNow();
    const expiresAtMs = this.#expiresAt[slot]!;
    if (now >= expiresAtMs) {
      this.#remove(slot);
      return undefined;
    }
    return {
      token: token as string,
      data: this.#data[slot] as Data,
      expiresAtMs,
      remainingMs: expiresAtMs - now,
    };
  }

  /**
   * Ends the session `token` names (logout): the token stops working at once. Returns whether a
   * valid session was ended; an expired one is removed too, but answers `false`.
   *
   * @example
   * await sessions.revoke(ctx.request.cookie("session"));
   */
  async revoke(token: string | undefined): Promise<boolean> {
    const slot = this.#find(token);
    if (slot === noSlot) return false;
    const wasValid = this.#io.monotonicNow() < this.#expiresAt[slot]!;
    this.#remove(slot);
    return wasValid;
  }

  /**
   * Removes every expired session now and returns how many were removed. Optional: expired
   * sessions are also removed lazily, so call it only to release their data sooner (from a timer,
   * say).
   *
   * @example
   * app.io.setTimer(60_000, () => sessions.sweep());
   */
  sweep(): number {
    return this.#removeExpired(this.#io.monotonicNow());
  }

  /** The occupied slot whose token equals `token`, compared in constant time, or `noSlot`. */
  #find(token: string | undefined): number {
    if (typeof token !== "string") return noSlot;
    const presented = decodeSessionToken(token);
    if (presented === undefined) return noSlot;
    const slot = this.#index.get(this.#digest(presented));
    if (slot === undefined) return noSlot;
    return constantTimeEqual(this.#tokenAt(slot), presented) ? slot : noSlot;
  }

  #removeExpired(now: number): number {
    let removed = 0;
    while (this.#oldest !== noSlot && now >= this.#expiresAt[this.#oldest]!) {
      this.#remove(this.#oldest);
      removed++;
    }
    return removed;
  }

  #tokenAt(slot: number): Uint8Array {
    return this.#tokens.subarray(slot * sessionTokenBytes, (slot + 1) * sessionTokenBytes);
  }

  #digest(bytes: Uint8Array): string {
    this.#hasher.update(bytes);
    return this.#hasher.digest("base64");
  }

  #append(slot: number): void {
    this.#older[slot] = this.#newest;
    this.#newer[slot] = noSlot;
    if (this.#newest === noSlot) this.#oldest = slot;
    else this.#newer[this.#newest] = slot;
    this.#newest = slot;
  }

  #remove(slot: number): void {
    const older = this.#older[slot]!;
    const newer = this.#newer[slot]!;
    if (older === noSlot) this.#oldest = newer;
    else this.#newer[older] = newer;
    if (newer === noSlot) this.#newest = older;
    else this.#older[newer] = older;
    this.#index.delete(this.#indexKeys[slot]!);
    this.#indexKeys[slot] = undefined;
    this.#data[slot] = undefined;
    this.#tokenAt(slot).fill(0);
    this.#freeSlots[this.#freeCount++] = slot;
  }
}
