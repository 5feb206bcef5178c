import {
  App,
  type Context,
  decodeText,
  HttpError,
  type Io,
  params,
  SessionCookie,
  type SessionStorage,
  SessionStore,
  SessionStoreFullError,
  systemIo,
} from "corral";
import { accountPage, loginPage } from "./pages.ts";
import { isSameOrigin } from "./same-origin.ts";
import { demoUsers, UserDirectory } from "./user-directory.ts";
import { UserSessions } from "./user-sessions.ts";

/** What a session remembers: who signed in. */
export interface SessionData {
  readonly username: string;
}

/** Options of `createSessionsApp`. */
export interface SessionsAppOptions {
  /**
   * Mark the session cookie `Secure` and name it `__Host-session` (bound to this exact origin,
   * RFC 6265bis §4.1.3.2). Turn it on whenever the site is reached over HTTPS, directly or behind
   * a TLS-terminating proxy. Off by default because the example serves plain HTTP on 127.0.0.1,
   * where clients such as curl never send a `Secure` cookie back.
   */
  readonly secureCookies?: boolean;
  /** The most sessions at once; one more login is a 503. Default 1024. */
  readonly maxSessions?: number;
  /** The most sessions one user holds; one more login revokes that user's oldest. Default 5. */
  readonly maxSessionsPerUser?: number;
  /** How long a session lasts from login, in milliseconds; never extended. Default 30 minutes. */
  readonly sessionLifetimeMs?: number;
  /**
   * Where sessions live: a `RedisSessionStore` shares them with every instance using the same
   * Redis. Default: a `SessionStore` in this process's memory, sized by `maxSessions` and
   * `sessionLifetimeMs`.
   */
  readonly sessions?: SessionStorage<SessionData>;
}

/** The example's shared state, exposed for tests. */
export interface SessionsShared {
  readonly sessions: SessionStorage<SessionData>;
  readonly perUser: UserSessions<SessionData>;
  readonly cookie: SessionCookie;
  readonly users: UserDirectory;
}

type SessionsContext = Pick<
  Context<SessionsShared, unknown, unknown>,
  "shared" | "request" | "response"
>;

// Bounds of the decoded form fields: a longer one is a DecodeError, answered 400.
const maxUsernameBytes = 64;
const maxPasswordBytes = 256;

/**
 * Login with server-side sessions: `GET /login` (the form), `POST /login` (check the password,
 * start a session, 303 to /account), `GET /account` (only with a valid session, else 303 to
 * /login), `POST /logout` (revoke, clear the cookie, 303 to /login). Sessions expire a fixed time
 * after login on the `io` clock; a full store answers 503 with `Retry-After`. A user holds at
 * most `maxSessionsPerUser` sessions (a new login revokes the oldest), and a login posted from
 * another site (its `Origin`) is a 403.
 */
export function createSessionsApp(
  io: Io = systemIo,
  options: SessionsAppOptions = {},
): App<SessionsShared> {
  const secure = options.secureCookies ?? false;
  const sessions =
    options.sessions ??
    new SessionStore<SessionData>({
      capacity: options.maxSessions ?? 1024,
      lifetimeMs: options.sessionLifetimeMs ?? 30 * 60_000,
      io,
    });
  const shared: SessionsShared = {
    sessions,
    perUser: new UserSessions(sessions, options.maxSessionsPerUser ?? 5),
    cookie: new SessionCookie({ name: secure ? "__Host-session" : "session", secure }),
    users: new UserDirectory(demoUsers, (target) => io.randomBytes(target)),
  };
  const app = new App<SessionsShared>({ shared, io });

  app.route("GET", "/", (ctx) => ctx.response.redirect(303, "/account"));

  app.route("GET", "/login", (ctx) => html(ctx, 200, loginPage()));

  app.route("POST", "/login", async (ctx) => {
    const { sessions, perUser, cookie, users } = ctx.shared;
    if (!isSameOrigin(ctx.request, secure ? "https" : "http")) {
      throw new HttpError(403, "Forbidden: this sign-in form was posted from another site");
    }
    const form = ctx.request.form();
    const username = decodeText(decodeField(form.firstRaw("username")?.valueRaw, maxUsernameBytes));
    const password = decodeField(form.firstRaw("password")?.valueRaw, maxPasswordBytes);
    if (!users.verify(username, password)) {
      // RFC 9110 §15.5.2: a 401 carries a challenge. "Form" names no standard scheme, so
      // browsers show no password dialog; it tells a client how to authenticate here.
      ctx.response.header("WWW-Authenticate", 'Form realm="corral sessions example"');
      html(ctx, 401, loginPage("Wrong username or password."));
      return;
    }
    // A fresh token on every login, and the one the client had (if any) ends now: a token
    // planted before login never becomes a signed-in session (session fixation, OWASP).
    await sessions.revoke(cookie.read(ctx.request));
    const session = await startSession(perUser, { username });
    cookie.set(ctx.response, session);
    // RFC 9110 §15.4.4: 303 makes the browser follow with a GET, so a reload does not post again.
    ctx.response.redirect(303, "/account");
  });

  app.route("GET", "/account", async (ctx) => {
    const session = await currentSession(ctx);
    if (session === undefined) {
      ctx.response.redirect(303, "/login");
      return;
    }
    const seconds = Math.ceil(session.remainingMs / 1000);
    html(ctx, 200, accountPage(session.data.username, seconds));
  });

  app.route("POST", "/logout", async (ctx) => {
    await ctx.shared.sessions.revoke(ctx.shared.cookie.read(ctx.request));
    ctx.shared.cookie.clear(ctx.response);
    ctx.response.redirect(303, "/login");
  });

  return app;
}

/**
 * The session the request's cookie names; a cookie that names none is cleared. When the store
 * cannot answer (Redis down), this rejects with a 503 `RedisUnavailableError`: fail closed.
 */
async function currentSession(ctx: SessionsContext) {
  const { sessions, cookie } = ctx.shared;
  const token = cookie.read(ctx.request);
  const session = await sessions.get(token);
  if (session === undefined && token !== undefined) cookie.clear(ctx.response);
  return session;
}

/** An HTML page that no cache keeps: it shows who is signed in, or a form for a password. */
function html(ctx: SessionsContext, status: number, page: string): void {
  ctx.response.text(status, page);
  ctx.response.header("Content-Type", "text/html; charset=utf-8");
  ctx.response.header("Cache-Control", "no-store");
}

function decodeField(raw: string | undefined, maxBytes: number): Uint8Array {
  return params.formDecodeInto(raw ?? "", new Uint8Array(maxBytes));
}

/**
 * A new session (revoking the user's oldest past the per-user cap), or, when every place in the
 * store holds another valid session, a 503 whose `Retry-After` (RFC 9110 §10.2.3) says when the
 * oldest one expires and a place is certain to be free (a logout may free one sooner). Nobody
 * else signed in is evicted.
 */
async function startSession(perUser: UserSessions<SessionData>, data: SessionData) {
  try {
    return await perUser.start(data);
  } catch (error) {
    if (!(error instanceof SessionStoreFullError)) throw error;
    throw new HttpError(503, "Too many people are signed in; try again in a while.", {
      headers: { "Retry-After": String(error.retryAfterSeconds) },
    });
  }
}
