import { ManualIo } from "../../src/io.ts";
import { RedisConnection } from "../../src/redis/redis-connection.ts";
import { RedisSessionStore } from "../../src/sessions/redis-session-store.ts";
import type { SessionStorage } from "../../src/sessions/session-storage.ts";
import { SessionStore } from "../../src/sessions/session-store.ts";
import { encodeSessionToken } from "../../src/sessions/session-token.ts";
import { startRedisServer } from "../support/redis-server.ts";

/** A ManualIo whose random bytes are a counter: token n is 31 zero bytes and then n. */
export function countingIo(): ManualIo {
  let counter = 0;
  return new ManualIo({
    randomBytes: (target) => {
      target.fill(0);
      target[target.length - 1] = ++counter;
      return target;
    },
  });
}

export function tokenNumber(n: number): string {
  const bytes = new Uint8Array(32);
  bytes[31] = n;
  return encodeSessionToken(bytes);
}

/** One kind of session store under the shared suite. */
export interface StoreKind {
  readonly name: string;
  /** Starts whatever the store needs (a Redis server); stopped by `close`. */
  setUp(): Promise<void>;
  close(): Promise<void>;
  make<Data>(capacity: number, lifetimeMs: number, io: ManualIo): SessionStorage<Data>;
  /** Returns once `token`'s session, created on `io`'s clock, has expired. */
  expire<Data>(sessions: SessionStorage<Data>, token: string, io: ManualIo): Promise<void>;
}

export const inMemory: StoreKind = {
  name: "SessionStore (in memory)",
  async setUp() {},
  async close() {},
  make: (capacity, lifetimeMs, io) => new SessionStore({ capacity, lifetimeMs, io }),
  async expire(sessions, _token, io) {
    io.advance(sessions.lifetimeMs);
  },
};

/** Redis on a server of its own; each store gets a fresh key prefix, so tests never meet. */
export function inRedis(): StoreKind & { readonly connection: () => RedisConnection } {
  let server: Awaited<ReturnType<typeof startRedisServer>> | undefined;
  let connection: RedisConnection | undefined;
  let stores = 0;
  return {
    name: "RedisSessionStore",
    connection: () => connection!,
    async setUp() {
      server = await startRedisServer();
      connection = await RedisConnection.open({ url: server.url });
    },
    async close() {
      connection?.close();
      await server?.[Symbol.asyncDispose]();
    },
    make: (capacity, lifetimeMs, io) =>
      new RedisSessionStore({
        redis: connection!,
        capacity,
        lifetimeMs,
        io,
        prefix: `test${++stores}:`,
      }),
    async expire(sessions, token) {
      // The Redis server's clock decides; wait for the condition, not for a time.
      while ((await sessions.get(token)) !== undefined) await Bun.sleep(5);
    },
  };
}
