import { describe, expect, test } from "bun:test";
import { App } from "../../src/app.ts";
import { ManualIo } from "../../src/io.ts";
import { SessionCookie } from "../../src/sessions/session-cookie.ts";
import { SessionStore } from "../../src/sessions/session-store.ts";

const fixedToken = `${"_".repeat(42)}8`; // 32 bytes of 0xff

/** An App with routes that set, clear and read `cookie` for sessions of `lifetimeMs`. */
function cookieApp(cookie: SessionCookie, lifetimeMs: number) {
  const io = new ManualIo({ randomBytes: (target) => target.fill(0xff) });
  const sessions = new SessionStore<string>({ capacity: 4, lifetimeMs, io });
  const app = new App({ shared: {}, io });
  app.route("POST", "/login", async (ctx) =>
    cookie.set(ctx.response, await sessions.create("ada")),
  );
  app.route("GET", "/refresh", async (ctx) => {
    const session = await sessions.get(cookie.read(ctx.request));
    if (session) cookie.set(ctx.response, session);
  });
  app.route("POST", "/logout", (ctx) => cookie.clear(ctx.response));
  app.route("GET", "/read", (ctx) => ctx.response.text(200, `${cookie.read(ctx.request)}`));
  return { app, io };
}

describe("SessionCookie", () => {
  test("set writes HttpOnly, SameSite=Lax, Path=/ and Max-Age equal to the lifetime", async () => {
    const { app } = cookieApp(new SessionCookie({ secure: false }), 1_800_000);
    const response = await app.request("/login", { method: "POST" });
    expect(response.headers.getSetCookie()).toEqual([
      `session=${fixedToken}; Max-Age=1800; Path=/; HttpOnly; SameSite=Lax`,
    ]);
  });

  test("a secure cookie adds Secure and may use the __Host- prefix", async () => {
    const cookie = new SessionCookie({ name: "__Host-session", secure: true });
    const { app } = cookieApp(cookie, 60_000);
    const response = await app.request("/login", { method: "POST" });
    expect(response.headers.getSetCookie()).toEqual([
      `__Host-session=${fixedToken}; Max-Age=60; Path=/; Secure; HttpOnly; SameSite=Lax`,
    ]);
  });

  test("Max-Age is the remaining lifetime, rounded up to whole seconds", async () => {
    const { app, io } = cookieApp(new SessionCookie({ secure: false }), 10_000);
    await app.request("/login", { method: "POST" });
    const maxAges: string[] = [];
    for (const step of [1500, 7499, 1000]) {
      io.advance(step);
      const response = await app.request("/refresh", {
        headers: { Cookie: `session=${fixedToken}` },
      });
      maxAges.push(/Max-Age=(\d+)/.exec(response.headers.get("set-cookie") ?? "")?.[1] ?? "none");
    }
    // 8500 ms left: 9 s; 1001 ms left: 2 s; 1 ms left: still 1 s, never 0 for a valid session
    expect(maxAges).toEqual(["9", "2", "1"]);
  });

  test("clear deletes the cookie with the same Path and flags", async () => {
    const { app } = cookieApp(new SessionCookie({ secure: true }), 1000);
    const response = await app.request("/logout", { method: "POST" });
    expect(response.headers.getSetCookie()).toEqual([
      "session=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Lax",
    ]);
  });

  test("read returns the first cookie of its name from the request, or undefined", async () => {
    const { app } = cookieApp(new SessionCookie({ name: "sid", secure: false }), 1000);
    const found = await app.request("/read", { headers: { Cookie: "a=1; sid=first; sid=second" } });
    const missing = await app.request("/read", { headers: { Cookie: "session=x" } });
    expect([await found.text(), await missing.text()]).toEqual(["first", "undefined"]);
  });

  test.each<[string, () => SessionCookie]>([
    ["a name that is not a token", () => new SessionCookie({ name: "my session", secure: false })],
    ["__Host- without secure", () => new SessionCookie({ name: "__Host-s", secure: false })],
    ["no secure choice", () => new SessionCookie({} as { secure: boolean })],
  ])("%s is a TypeError at construction", (_name, make) => {
    expect(make).toThrow(TypeError);
  });
});
