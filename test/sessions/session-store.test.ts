import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualIo } from "../../src/io.ts";
import { SessionStoreFullError } from "../../src/sessions/session-errors.ts";
import { maxSessionCapacity, SessionStore } from "../../src/sessions/session-store.ts";
import {
  countingIo,
  inMemory,
  inRedis,
  type StoreKind,
  tokenNumber,
} from "./session-store-harness.ts";

// One suite, passed by both stores: what a login, a page view and a logout rely on.
describe.each<StoreKind>([inMemory, inRedis()])("$name", (kind) => {
  beforeAll(() => kind.setUp());
  afterAll(() => kind.close());

  function store(capacity: number, lifetimeMs: number, io = countingIo()) {
    return { io, sessions: kind.make<{ user: string }>(capacity, lifetimeMs, io) };
  }

  async function rejection(promise: Promise<unknown>): Promise<unknown> {
    return promise.then(
      () => "resolved",
      (error: unknown) => error,
    );
  }

  test("create hands out the Io's random bytes as a token and get finds the data again", async () => {
    const { sessions } = store(4, 60_000);
    const ada = await sessions.create({ user: "ada" });
    const bob = await sessions.create({ user: "bob" });
    expect({ ada, bob: bob.token, found: (await sessions.get(ada.token))?.data }).toEqual({
      ada: {
        token: tokenNumber(1),
        data: { user: "ada" },
        expiresAtMs: 60_000,
        remainingMs: 60_000,
      },
      bob: tokenNumber(2),
      found: { user: "ada" },
    });
  });

  test("data is a frozen copy of its JSON: the caller's object changed later changes nothing, and changing what create or get returns is a TypeError", async () => {
    const nested = kind.make<{ user: string; roles: string[]; at: unknown }>(
      4,
      60_000,
      countingIo(),
    );
    const given = { user: "ada", roles: ["reader"], at: new Date(0) };
    const created = await nested.create(given);
    given.user = "eve";
    given.roles.push("admin");
    const found = (await nested.get(created.token))!.data;
    const attempts = [created.data, found].flatMap((data) => [
      () => {
        data.user = "eve";
      },
      () => data.roles.push("admin"),
    ]);
    expect({
      created: created.data,
      found,
      thrown: attempts.map((attempt) => {
        try {
          attempt();
          return "changed";
        } catch (error) {
          return error instanceof TypeError;
        }
      }),
      after: (await nested.get(created.token))!.data,
    }).toEqual({
      created: { user: "ada", roles: ["reader"], at: "1970-01-01T00:00:00.000Z" },
      found: { user: "ada", roles: ["reader"], at: "1970-01-01T00:00:00.000Z" },
      thrown: [true, true, true, true],
      after: { user: "ada", roles: ["reader"], at: "1970-01-01T00:00:00.000Z" },
    });
  });

  test("data JSON cannot carry is a TypeError at create, and takes no slot", async () => {
    const sessions = kind.make<unknown>(1, 60_000, countingIo());
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const refused = [
      await rejection(sessions.create(undefined)),
      await rejection(sessions.create(10n)),
      await rejection(sessions.create(cyclic)),
    ];
    const created = await sessions.create({ user: "ada" });
    expect({
      refused: refused.map((error) =>
        error instanceof TypeError ? error.message.slice(0, 33) : error,
      ),
      stored: (await sessions.get(created.token))?.data,
    }).toEqual({
      refused: Array(3).fill("corral: session data must be JSON"),
      stored: { user: "ada" },
    });
  });

  test("absent, malformed and unknown tokens find nothing", async () => {
    const { sessions } = store(4, 60_000);
    const { token } = await sessions.create({ user: "ada" });
    const nonCanonical = `${token.slice(0, 42)}F`; // decodes to the same bytes if not refused
    const lookups = [undefined, "", "x", `${token} `, ` ${token}`, nonCanonical, tokenNumber(9)];
    const found = await Promise.all(lookups.map((text) => sessions.get(text)));
    expect(found).toEqual(lookups.map(() => undefined));
    expect((await sessions.get(token))?.data).toEqual({ user: "ada" });
  });

  test("a token one bit away from a stored one is not that session", async () => {
    const { sessions } = store(4, 60_000);
    const { token } = await sessions.create({ user: "ada" });
    expect([await sessions.get(tokenNumber(3)), await sessions.revoke(tokenNumber(3))]).toEqual([
      undefined,
      false,
    ]);
    expect((await sessions.get(token))?.data).toEqual({ user: "ada" });
  });

  test("randomness that repeats a live token is an error, and nothing is stored", async () => {
    const io = new ManualIo({ randomBytes: (target) => target.fill(7) });
    const sessions = kind.make<string>(4, 60_000, io);
    const first = await sessions.create("first");
    const error = await rejection(sessions.create("second"));
    expect(String(error)).toMatch(/already in use/);
    expect((await sessions.get(first.token))?.data).toBe("first");
  });

  test("a session expires a fixed time after creation and using it never extends it", async () => {
    const { io, sessions } = store(4, 300);
    const { token } = await sessions.create({ user: "ada" });
    const first = await sessions.get(token);
    const second = await sessions.get(token);
    await kind.expire(sessions, token, io);
    expect({
      extended: (second?.remainingMs ?? 0) > (first?.remainingMs ?? 0),
      within: (first?.remainingMs ?? 0) <= 300,
      expired: await sessions.get(token),
      revokedAfter: await sessions.revoke(token),
    }).toEqual({ extended: false, within: true, expired: undefined, revokedAfter: false });
  });

  test("revoke ends a session at once and only once", async () => {
    const { sessions } = store(4, 60_000);
    const ada = await sessions.create({ user: "ada" });
    const bob = await sessions.create({ user: "bob" });
    const results = [await sessions.revoke(ada.token), await sessions.revoke(ada.token)];
    expect({
      results,
      ada: await sessions.get(ada.token),
      bob: (await sessions.get(bob.token))?.data,
      none: await sessions.revoke(undefined),
    }).toEqual({ results: [true, false], ada: undefined, bob: { user: "bob" }, none: false });
  });

  test("exactly capacity sessions fit; one more is SessionStoreFullError and evicts nobody", async () => {
    const { sessions } = store(3, 10_000);
    const tokens: string[] = [];
    for (const n of [0, 1, 2]) tokens.push((await sessions.create({ user: `user${n}` })).token);
    const error = await rejection(sessions.create({ user: "one too many" }));
    expect(error).toBeInstanceOf(SessionStoreFullError);
    const full = error as SessionStoreFullError;
    const stillValid = await Promise.all(tokens.map((token) => sessions.get(token)));
    expect({
      capacity: full.capacity,
      retryAfterInRange: full.retryAfterSeconds >= 1 && full.retryAfterSeconds <= 10,
      stillValid: stillValid.map((session) => session?.data.user),
    }).toEqual({ capacity: 3, retryAfterInRange: true, stillValid: ["user0", "user1", "user2"] });
  });

  test("after a revoke one more fits, and then the store is full again", async () => {
    const { sessions } = store(2, 60_000);
    const first = await sessions.create({ user: "a" });
    await sessions.create({ user: "b" });
    const before = await rejection(sessions.create({ user: "c" }));
    await sessions.revoke(first.token);
    const third = await sessions.create({ user: "c" });
    const after = await rejection(sessions.create({ user: "d" }));
    expect({
      before: before instanceof SessionStoreFullError,
      third: (await sessions.get(third.token))?.data,
      after: after instanceof SessionStoreFullError,
    }).toEqual({ before: true, third: { user: "c" }, after: true });
  });

  test("after an expiry one more fits without calling sweep", async () => {
    const { io, sessions } = store(2, 300);
    const a = await sessions.create({ user: "a" });
    const b = await sessions.create({ user: "b" });
    const full = await rejection(sessions.create({ user: "c" }));
    await kind.expire(sessions, a.token, io);
    await kind.expire(sessions, b.token, io);
    const c = await sessions.create({ user: "c" });
    expect({
      full: full instanceof SessionStoreFullError,
      c: (await sessions.get(c.token))?.data,
    }).toEqual({ full: true, c: { user: "c" } });
  });
});

describe("SessionStore (in memory): the manual clock to the millisecond", () => {
  function store(capacity: number, lifetimeMs: number, io = countingIo()) {
    return { io, sessions: new SessionStore<{ user: string }>({ capacity, lifetimeMs, io }) };
  }

  test("valid at expiry - 1 ms, gone at expiry, and removed when met", async () => {
    const { io, sessions } = store(4, 1000);
    io.advance(250);
    const { token } = await sessions.create({ user: "ada" });
    io.advance(999);
    const lastMoment = await sessions.get(token);
    io.advance(1);
    expect({
      lastMoment: [lastMoment?.remainingMs, lastMoment?.expiresAtMs],
      atExpiry: await sessions.get(token),
      size: sessions.size,
    }).toEqual({ lastMoment: [1, 1250], atExpiry: undefined, size: 0 });
  });

  test("using a session never extends it (no sliding renewal)", async () => {
    const { io, sessions } = store(4, 1000);
    const { token } = await sessions.create({ user: "ada" });
    const seen: Array<number | undefined> = [];
    for (let step = 0; step < 4; step++) {
      io.advance(250);
      seen.push((await sessions.get(token))?.expiresAtMs);
    }
    expect(seen).toEqual([1000, 1000, 1000, undefined]);
  });

  test("sweep removes exactly the expired sessions, oldest first", async () => {
    const { io, sessions } = store(4, 1000);
    const early = await sessions.create({ user: "early" });
    io.advance(500);
    const late = await sessions.create({ user: "late" });
    io.advance(499);
    const none = sessions.sweep();
    io.advance(1);
    const one = sessions.sweep();
    expect({
      swept: [none, one],
      size: sessions.size,
      early: await sessions.get(early.token),
      late: (await sessions.get(late.token))?.remainingMs,
    }).toEqual({ swept: [0, 1], size: 1, early: undefined, late: 500 });
    io.advance(500);
    expect([sessions.sweep(), sessions.size]).toEqual([1, 0]);
  });

  test("revoking an expired session removes it but answers false", async () => {
    const { io, sessions } = store(4, 1000);
    const { token } = await sessions.create({ user: "ada" });
    io.advance(1000);
    expect([sessions.size, await sessions.revoke(token), sessions.size]).toEqual([1, false, 0]);
  });

  test("a full store's Retry-After is the oldest session's remaining lifetime, rounded up", async () => {
    const { io, sessions } = store(3, 10_000);
    for (const n of [0, 1, 2]) {
      io.advance(1000);
      await sessions.create({ user: `user${n}` });
    }
    io.advance(1500);
    const error = await sessions.create({ user: "one too many" }).catch((caught) => caught);
    // the oldest was created at 1000 and expires at 11_000; it is 4500 now: 6.5 s, rounded up
    expect([
      error instanceof SessionStoreFullError,
      error.retryAfterSeconds,
      sessions.size,
    ]).toEqual([true, 7, 3]);
  });

  test("under random churn the store agrees with a simple model and never exceeds capacity", async () => {
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
          const session = await sessions.create(step);
          model.set(session.token, { value: step, expiresAt: now + lifetimeMs });
        } catch (error) {
          fullRejections++;
          if (!(error instanceof SessionStoreFullError) || model.size < capacity) {
            mismatches.push(`step ${step}: create failed with ${model.size} live`);
          }
        }
      } else if (choice < 0.6 && tokens.length > 0) {
        const token = tokens[Math.floor(next() * tokens.length)]!;
        if (!(await sessions.revoke(token))) mismatches.push(`step ${step}: revoke missed`);
        model.delete(token);
      } else {
        io.advance(Math.floor(next() * 30));
      }
      if (sessions.size > capacity) mismatches.push(`step ${step}: size ${sessions.size}`);
      const later = io.monotonicNow();
      for (const [token, entry] of model) {
        const expected = later < entry.expiresAt ? entry.value : undefined;
        if ((await sessions.get(token))?.data !== expected) {
          mismatches.push(`step ${step}: get differs`);
        }
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
