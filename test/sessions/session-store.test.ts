import { describe, expect, test } from "bun:test";
import { ManualIo } from "../../src/io.ts";
import { SessionStoreFullError } from "../../src/sessions/session-errors.ts";
import { maxSessionCapacity, SessionStore } from "../../src/sessions/session-store.ts";
import { encodeSessionToken } from "../../src/sessions/session-token.ts";

/** A ManualIo whose random bytes are a counter: token n is 31 zero bytes and then n. */
function countingIo(): ManualIo {
  let counter = 0;
  return new ManualIo({
    randomBytes: (target) => {
      target.fill(0);
      target[target.length - 1] = ++counter;
      return target;
    },
  });
}

function tokenNumber(n: number): string {
  const bytes = new Uint8Array(32);
  bytes[31] = n;
  return encodeSessionToken(bytes);
}

function store(capacity: number, lifetimeMs: number, io = countingIo()) {
  return { io, sessions: new SessionStore<{ user: string }>({ capacity, lifetimeMs, io }) };
}

describe("SessionStore: tokens and data", () => {
  test("create hands out the Io's random bytes as a token and get finds the data again", () => {
    const { sessions } = store(4, 1000);
    const ada = sessions.create({ user: "ada" });
    const bob = sessions.create({ user: "bob" });
    expect({
      ada,
      bob: bob.token,
      found: sessions.get(ada.token)?.data,
      size: sessions.size,
    }).toEqual({
      ada: { token: tokenNumber(1), data: { user: "ada" }, expiresAtMs: 1000, remainingMs: 1000 },
      bob: tokenNumber(2),
      found: { user: "ada" },
      size: 2,
    });
  });

  test("absent, malformed and unknown tokens find nothing", () => {
    const { sessions } = store(4, 1000);
    const { token } = sessions.create({ user: "ada" });
    const nonCanonical = `${token.slice(0, 42)}F`; // decodes to the same bytes if not refused
    const lookups = [undefined, "", "x", `${token} `, ` ${token}`, nonCanonical, tokenNumber(9)];
    expect(lookups.map((text) => sessions.get(text))).toEqual(lookups.map(() => undefined));
    expect(sessions.get(token)?.data).toEqual({ user: "ada" });
  });

  test("a token one bit away from a stored one is not that session", () => {
    const { sessions } = store(4, 1000);
    const { token } = sessions.create({ user: "ada" });
    expect([sessions.get(tokenNumber(3)), sessions.revoke(tokenNumber(3))]).toEqual([
      undefined,
      false,
    ]);
    expect(sessions.get(token)?.data).toEqual({ user: "ada" });
  });

  test("randomness that repeats a live token is an error, and nothing is stored", () => {
    const io = new ManualIo({ randomBytes: (target) => target.fill(7) });
    const sessions = new SessionStore<string>({ capacity: 4, lifetimeMs: 1000, io });
    const first = sessions.create("first");
    expect(() => sessions.create("second")).toThrow(/already in use/);
    expect([sessions.size, sessions.get(first.token)?.data]).toEqual([1, "first"]);
  });
});

describe("SessionStore: fixed expiry", () => {
  test("valid at expiry - 1 ms, gone at expiry, and removed when met", () => {
    const { io, sessions } = store(4, 1000);
    io.advance(250);
    const { token } = sessions.create({ user: "ada" });
    io.advance(999);
    const lastMoment = sessions.get(token);
    io.advance(1);
    expect({
      lastMoment: [lastMoment?.remainingMs, lastMoment?.expiresAtMs],
      atExpiry: sessions.get(token),
      size: sessions.size,
    }).toEqual({ lastMoment: [1, 1250], atExpiry: undefined, size: 0 });
  });

  test("using a session never extends it (no sliding renewal)", () => {
    const { io, sessions } = store(4, 1000);
    const { token } = sessions.create({ user: "ada" });
    const seen: Array<number | undefined> = [];
    for (let step = 0; step < 4; step++) {
      io.advance(250);
      seen.push(sessions.get(token)?.expiresAtMs);
    }
    expect(seen).toEqual([1000, 1000, 1000, undefined]);
  });

  test("sweep removes exactly the expired sessions, oldest first", () => {
    const { io, sessions } = store(4, 1000);
    const early = sessions.create({ user: "early" });
    io.advance(500);
    const late = sessions.create({ user: "late" });
    io.advance(499);
    const none = sessions.sweep();
    io.advance(1);
    const one = sessions.sweep();
    expect({
      swept: [none, one],
      size: sessions.size,
      early: sessions.get(early.token),
      late: sessions.get(late.token)?.remainingMs,
    }).toEqual({ swept: [0, 1], size: 1, early: undefined, late: 500 });
    io.advance(500);
    expect([sessions.sweep(), sessions.size]).toEqual([1, 0]);
  });
});

describe("SessionStore: revocation", () => {
  test("revoke ends a session at once and only once", () => {
    const { sessions } = store(4, 1000);
    const ada = sessions.create({ user: "ada" });
    const bob = sessions.create({ user: "bob" });
    const results = [sessions.revoke(ada.token), sessions.revoke(ada.token)];
    expect({
      results,
      ada: sessions.get(ada.token),
      bob: sessions.get(bob.token)?.data,
      size: sessions.size,
      none: sessions.revoke(undefined),
    }).toEqual({
      results: [true, false],
      ada: undefined,
      bob: { user: "bob" },
      size: 1,
      none: false,
    });
  });

  test("revoking an expired session removes it but answers false", () => {
    const { io, sessions } = store(4, 1000);
    const { token } = sessions.create({ user: "ada" });
    io.advance(1000);
    expect([sessions.size, sessions.revoke(token), sessions.size]).toEqual([1, false, 0]);
  });
});

describe("SessionStore: fixed capacity", () => {
  test("exactly capacity sessions fit; one more is SessionStoreFullError and evicts nobody", () => {
    const { io, sessions } = store(3, 10_000);
    const tokens = [0, 1, 2].map((n) => {
      io.advance(1000);
      return sessions.create({ user: `user${n}` }).token;
    });
    io.advance(1500);
    let error: unknown;
    try {
      sessions.create({ user: "one too many" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SessionStoreFullError);
    expect({
      capacity: (error as SessionStoreFullError).capacity,
      // the oldest was created at 1000 and expires at 11_000; it is 4500 now: 6.5 s, rounded up
      retryAfterSeconds: (error as SessionStoreFullError).retryAfterSeconds,
      stillValid: tokens.map((token) => sessions.get(token)?.data.user),
      size: sessions.size,
    }).toEqual({
      capacity: 3,
      retryAfterSeconds: 7,
      stillValid: ["user0", "user1", "user2"],
      size: 3,
    });
  });

  test("after a revoke one more fits, and then the store is full again", () => {
    const { sessions } = store(2, 10_000);
    const first = sessions.create({ user: "a" });
    sessions.create({ user: "b" });
    expect(() => sessions.create({ user: "c" })).toThrow(SessionStoreFullError);
    sessions.revoke(first.token);
    const third = sessions.create({ user: "c" });
    expect(sessions.get(third.token)?.data).toEqual({ user: "c" });
    expect(() => sessions.create({ user: "d" })).toThrow(SessionStoreFullError);
  });

  test("after an expiry one more fits without calling sweep", () => {
    const { io, sessions } = store(2, 1000);
    sessions.create({ user: "a" });
    io.advance(10);
    sessions.create({ user: "b" });
    io.advance(989);
    expect(() => sessions.create({ user: "c" })).toThrow(SessionStoreFullError);
    io.advance(1);
    expect(sessions.create({ user: "c" }).data).toEqual({ user: "c" });
    expect(sessions.size).toBe(2);
    expect(() => sessions.create({ user: "d" })).toThrow(SessionStoreFullError);
  });

  test("under random churn the store agrees with a simple model and never exceeds capacity", () => {
    const capacity = 5;
    const lifetimeMs = 100;
    const io = new ManualIo();
    const sessions = new SessionStore<number>({ capacity, lifetimeMs, io });
    const model = new Map<string, { value: number; expiresAt: number }>();
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const mismatches: string[] = [];
    let fullRejections = 0;
    for (let step = 0; step < 2000; step++) {
      const now = io.monotonicNow();
      for (const [token, entry] of model) if (now >= entry.expiresAt) model.delete(token);
      const choice = next();
      const tokens = [...model.keys()];
      if (choice < 0.45) {
        try {
          const session = sessions.create(step);
          model.set(session.token, { value: step, expiresAt: now + lifetimeMs });
        } catch (error) {
          fullRejections++;
          if (!(error instanceof SessionStoreFullError) || model.size < capacity) {
            mismatches.push(`step ${step}: create failed with ${model.size} live`);
          }
        }
      } else if (choice < 0.6 && tokens.length > 0) {
        const token = tokens[Math.floor(next() * tokens.length)]!;
        if (!sessions.revoke(token)) mismatches.push(`step ${step}: revoke missed`);
        model.delete(token);
      } else {
        io.advance(Math.floor(next() * 30));
      }
      if (sessions.size > capacity) mismatches.push(`step ${step}: size ${sessions.size}`);
      const later = io.monotonicNow();
      for (const [token, entry] of model) {
        const expected = later < entry.expiresAt ? entry.value : undefined;
        if (sessions.get(token)?.data !== expected) mismatches.push(`step ${step}: get differs`);
      }
    }
    expect({ mismatches, sawFull: fullRejections > 0 }).toEqual({ mismatches: [], sawFull: true });
  });
});

describe("SessionStore: options", () => {
  test.each<[string, number, number]>([
    ["capacity 0", 0, 1000],
    ["fractional capacity", 1.5, 1000],
    ["capacity over the maximum", maxSessionCapacity + 1, 1000],
    ["lifetime 0", 1, 0],
    ["fractional lifetime", 1, 0.5],
    ["NaN lifetime", 1, Number.NaN],
  ])("%s is a RangeError", (_name, capacity, lifetimeMs) => {
    expect(() => new SessionStore({ capacity, lifetimeMs })).toThrow(RangeError);
  });
});
