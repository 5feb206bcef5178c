import { describe, expect, test } from "bun:test";
import { ManualIo } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { accountPage, loginPage } from "../../examples/sessions/pages.ts";
import {
  createSessionsApp,
  type SessionsAppOptions,
} from "../../examples/sessions/sessions-app.ts";
import { heldSessions } from "./support/held-sessions.ts";
import { startExample } from "./support/start-example.ts";

const tokenCookie = /^session=([A-Za-z0-9_-]{43}); Max-Age=1800; Path=\/; HttpOnly; SameSite=Lax$/;
const clearedCookie =
  "session=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; HttpOnly; SameSite=Lax";
const formType = { "Content-Type": "application/x-www-form-urlencoded" };

/** The cookies a browser would hold, kept by hand from Set-Cookie lines (name=value only). */
class CookieJar {
  readonly #cookies = new Map<string, string>();

  /** Applies a response's Set-Cookie lines: a Max-Age of 0 deletes, anything else stores. */
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const equals = pair.indexOf("=");
      const name = pair.slice(0, equals);
      if (/;\s*Max-Age=0(;|$)/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, pair.slice(equals + 1));
    }
  }

  /** The Cookie request header, or none when the jar is empty. */
  headers(): Record<string, string> {
    if (this.#cookies.size === 0) return {};
    const pairs = [...this.#cookies].map(([name, value]) => `${name}=${value}`);
    return { Cookie: pairs.join("; ") };
  }
}

function loginBody(username: string, password: string): string {
  return `username=${encodeURIComponent(username)}&password=${encodeURIComponent(password)}`;
}

/** The app on a manual clock, and a login helper that returns the session cookie pair. */
function inProcess(options: SessionsAppOptions = {}) {
  const io = new ManualIo();
  const app = createSessionsApp(io, options);
  const login = async (username = "ada", password = "analytical-engine") =>
    app.request("/login", {
      method: "POST",
      headers: formType,
      body: loginBody(username, password),
    });
  const account = (cookie: string) => app.request("/account", { headers: { Cookie: cookie } });
  return { io, app, login, account };
}

function cookiePair(response: Response): string {
  return (response.headers.get("set-cookie") ?? "").split(";")[0]!;
}

test("over HTTP: the whole login, account and logout flow with a hand-kept cookie jar", async () => {
  await using example = await startExample("sessions");
  const jar = new CookieJar();
  const visit = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(new URL(path, example.baseUrl), {
      ...init,
      headers: { ...jar.headers(), ...(init.headers as Record<string, string>) },
      redirect: "manual",
    });
    jar.take(response);
    return response;
  };
  const post = (path: string, body = "") =>
    visit(path, { method: "POST", headers: formType, body });

  const anonymous = await visit("/account");
  const form = await visit("/login");
  const formHtml = await form.text();
  const wrong = await post("/login", loginBody("ada", "babbage"));
  const wrongHtml = await wrong.text();
  const login = await post("/login", loginBody("ada", "analytical-engine"));
  const setCookie = login.headers.get("set-cookie") ?? "";
  const account = await visit("/account");
  const accountHtml = await account.text();
  const stolen = `session=${tokenCookie.exec(setCookie)?.[1]}`;
  const logout = await post("/logout");
  const afterLogout = await visit("/account");
  const replayed = await fetch(new URL("/account", example.baseUrl), {
    headers: { Cookie: stolen },
    redirect: "manual",
  });

  expect({
    anonymous: [anonymous.status, anonymous.headers.get("location")],
    form: [form.status, form.headers.get("content-type"), formHtml.includes('action="/login"')],
    wrong: [
      wrong.status,
      wrong.headers.get("www-authenticate"),
      wrong.headers.get("set-cookie"),
      wrongHtml.includes("Wrong username or password.") && wrongHtml.includes("<form"),
    ],
    login: [login.status, login.headers.get("location"), tokenCookie.test(setCookie)],
    account: [
      account.status,
      account.headers.get("cache-control"),
      accountHtml.includes("<strong>ada</strong>"),
    ],
    logout: [logout.status, logout.headers.get("location"), logout.headers.getSetCookie()],
    afterLogout: [afterLogout.status, afterLogout.headers.get("location")],
    replayed: [replayed.status, replayed.headers.get("location")],
  }).toEqual({
    anonymous: [303, "/login"],
    form: [200, "text/html; charset=utf-8", true],
    wrong: [401, 'Form realm="corral sessions example"', null, true],
    login: [303, "/account", true],
    account: [200, "no-store", true],
    logout: [303, "/login", [clearedCookie]],
    afterLogout: [303, "/login"],
    replayed: [303, "/login"],
  });
});

test("on the wire: a login answers exactly 303, the session cookie and an empty body", async () => {
  await using example = await startExample("sessions");
  using client = await RawClient.connect(example.port);
  const body = loginBody("grace", "compiler-1952");
  client.send(
    `POST /login HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  );
  const response = await client.response();
  const cookie = response.header("set-cookie") ?? "";
  client.send(`GET /account HTTP/1.1\r\nHost: h\r\nCookie: ${cookie.split(";")[0]}\r\n\r\n`);
  const [, account] = await client.responses(2);
  expect({
    statusLine: response.statusLine,
    location: response.header("location"),
    cookie: tokenCookie.test(cookie),
    length: response.header("content-length"),
    account: [account!.statusLine, account!.text.includes("<strong>grace</strong>")],
  }).toEqual({
    statusLine: "HTTP/1.1 303 See Other",
    location: "/account",
    cookie: true,
    length: "0",
    account: ["HTTP/1.1 200 OK", true],
  });
});

describe("in process, on a manual clock", () => {
  test("a session is valid 1 ms before its expiry and gone at it; the dead cookie is cleared", async () => {
    const { io, login, account } = inProcess({ sessionLifetimeMs: 60_000 });
    const cookie = cookiePair(await login());
    io.advance(59_999);
    const lastMoment = await account(cookie);
    const lastHtml = await lastMoment.text();
    io.advance(1);
    const expired = await account(cookie);
    expect({
      lastMoment: [lastMoment.status, lastHtml.includes("ends in 1 s")],
      expired: [expired.status, expired.headers.get("location"), expired.headers.getSetCookie()],
    }).toEqual({
      lastMoment: [200, true],
      expired: [303, "/login", [clearedCookie]],
    });
  });

  test("visiting the account never extends the session", async () => {
    const { io, login, account } = inProcess({ sessionLifetimeMs: 3000 });
    const cookie = cookiePair(await login());
    const statuses: number[] = [];
    for (let step = 0; step < 3; step++) {
      io.advance(1000);
      statuses.push((await account(cookie)).status);
    }
    expect(statuses).toEqual([200, 200, 303]);
  });

  test("logout revokes on the server: the old cookie no longer works even if kept", async () => {
    const { app, login, account } = inProcess();
    const ada = cookiePair(await login());
    const grace = cookiePair(await login("grace", "compiler-1952"));
    const logout = await app.request("/logout", { method: "POST", headers: { Cookie: ada } });
    expect({
      logout: [logout.status, logout.headers.getSetCookie()],
      ada: (await account(ada)).status,
      grace: (await account(grace)).status,
      size: heldSessions(app.shared),
    }).toEqual({ logout: [303, [clearedCookie]], ada: 303, grace: 200, size: 1 });
  });

  test("signing in again replaces the session the client already had", async () => {
    const { app, account } = inProcess();
    const first = cookiePair(
      await app.request("/login", {
        method: "POST",
        headers: formType,
        body: loginBody("ada", "analytical-engine"),
      }),
    );
    const second = await app.request("/login", {
      method: "POST",
      headers: { ...formType, Cookie: first },
      body: loginBody("ada", "analytical-engine"),
    });
    const renewed = cookiePair(second);
    expect({
      differs: renewed !== first,
      first: (await account(first)).status,
      renewed: (await account(renewed)).status,
      size: heldSessions(app.shared),
    }).toEqual({ differs: true, first: 303, renewed: 200, size: 1 });
  });

  test("an unknown user and a wrong password get the same 401 and no cookie", async () => {
    const { login } = inProcess();
    const answers = await Promise.all(
      [login("nobody", "analytical-engine"), login("ada", "analytical-engin"), login("", "")].map(
        async (pending) => {
          const response = await pending;
          return [response.status, response.headers.get("set-cookie"), await response.text()];
        },
      ),
    );
    expect(answers[0]![0]).toBe(401);
    expect(answers).toEqual([answers[0]!, answers[0]!, answers[0]!]);
    expect(answers[0]![1]).toBeNull();
  });

  test("a password of exactly 256 decoded bytes is checked; 257 bytes is a 400", async () => {
    const { login } = inProcess();
    const atLimit = await login("ada", "p".repeat(256));
    const over = await login("ada", "p".repeat(257));
    expect([atLimit.status, over.status, await over.text()]).toEqual([
      401,
      400,
      "Bad Request: decoded value needs more than 256 bytes\n",
    ]);
  });

  test("a full store answers 503 with Retry-After and evicts nobody; after a logout one fits", async () => {
    const { io, app, login, account } = inProcess({ maxSessions: 2, sessionLifetimeMs: 60_000 });
    const first = cookiePair(await login());
    io.advance(10_000);
    const second = cookiePair(await login("grace", "compiler-1952"));
    io.advance(5_500);
    const full = await login();
    const fullText = await full.text();
    const stillIn = [(await account(first)).status, (await account(second)).status];
    await app.request("/logout", { method: "POST", headers: { Cookie: first } });
    const fits = await login();
    expect({
      // the oldest session expires at 60 s; it is 15.5 s now: 44.5 s, rounded up
      full: [
        full.status,
        full.headers.get("retry-after"),
        full.headers.get("content-type"), // one line: two would be joined with ", "
        full.headers.get("set-cookie"),
        fullText,
      ],
      stillIn,
      fits: [fits.status, fits.headers.get("location")],
    }).toEqual({
      full: [
        503,
        "45",
        "text/plain; charset=utf-8",
        null,
        "Too many people are signed in; try again in a while.\n",
      ],
      stillIn: [200, 200],
      fits: [303, "/account"],
    });
  });

  test("a user holds at most maxSessionsPerUser sessions: one more login revokes their oldest", async () => {
    const { app, login, account } = inProcess({ maxSessionsPerUser: 2 });
    const ada = [];
    for (let index = 0; index < 4; index++) ada.push(cookiePair(await login()));
    const grace = cookiePair(await login("grace", "compiler-1952"));
    // A logout frees a place of ada's own: her next login revokes nobody.
    await app.request("/logout", { method: "POST", headers: { Cookie: ada[3]! } });
    const afterLogout = cookiePair(await login());
    const statuses = [];
    for (const cookie of [...ada, afterLogout, grace])
      statuses.push((await account(cookie)).status);
    expect({
      statuses,
      size: heldSessions(app.shared),
      displaced: app.shared.perUser.displaced,
    }).toEqual({ statuses: [303, 303, 200, 303, 200, 200], size: 3, displaced: 2 });
  });

  test("POST /login checks Origin: another site or null is a 403 with no session; same or none passes", async () => {
    const { app } = inProcess();
    const answers: Record<string, unknown> = {};
    for (const origin of ["http://evil.example", "null", "https://localhost", "http://localhost"]) {
      const response = await app.request("/login", {
        method: "POST",
        headers: { ...formType, Origin: origin },
        body: loginBody("ada", "analytical-engine"),
      });
      answers[origin] = [response.status, response.headers.get("set-cookie") !== null];
    }
    const none = await app.request("/login", {
      method: "POST",
      headers: formType,
      body: loginBody("ada", "analytical-engine"),
    });
    const forbidden = await app.request("/login", {
      method: "POST",
      headers: { ...formType, Origin: "http://evil.example" },
      body: loginBody("ada", "wrong"),
    });
    expect({
      answers,
      none: none.status,
      forbidden: [forbidden.status, await forbidden.text()],
      size: heldSessions(app.shared),
    }).toEqual({
      answers: {
        "http://evil.example": [403, false],
        null: [403, false],
        "https://localhost": [403, false],
        "http://localhost": [303, true],
      },
      none: 303,
      forbidden: [403, "Forbidden: this sign-in form was posted from another site\n"],
      size: 2,
    });
  });

  test("with secureCookies the expected origin is https", async () => {
    const { app } = inProcess({ secureCookies: true });
    const statuses = [];
    for (const origin of ["http://localhost", "https://localhost"]) {
      const response = await app.request("/login", {
        method: "POST",
        headers: { ...formType, Origin: origin },
        body: loginBody("ada", "analytical-engine"),
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([403, 303]);
  });

  test("secureCookies makes the cookie __Host-session with Secure", async () => {
    const { login } = inProcess({ secureCookies: true });
    const cookie = (await login()).headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(
      /^__Host-session=[A-Za-z0-9_-]{43}; Max-Age=1800; Path=\/; Secure; HttpOnly; SameSite=Lax$/,
    );
  });

  test("/ leads to the account page, and page text is escaped", async () => {
    const { app } = inProcess();
    const root = await app.request("/");
    expect([
      root.status,
      root.headers.get("location"),
      accountPage(`<a href="x">Tom & Jerry's</a>`, 5).includes(
        "<strong>&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#x27;s&lt;/a&gt;</strong>",
      ),
      loginPage("<b>").includes('<p role="alert">&lt;b&gt;</p>'),
    ]).toEqual([303, "/account", true, true]);
  });
});
