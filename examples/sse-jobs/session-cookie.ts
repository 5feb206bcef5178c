import { type Context, HttpError, type Middleware, middleware } from "corral";
import type { SessionBook } from "./job-backend.ts";
import type { Session } from "./session-set.ts";

/**
 * The cookie that carries the session token.
 *
 * @example
 * ctx.request.cookie(sessionCookieName);
 */
export const sessionCookieName = "sid";

/**
 * The request locals the session middleware adds.
 *
 * @example
 * app.route("GET", "/me", (ctx) => ctx.response.text(200, ctx.locals.session ? "in" : "out"));
 */
export interface SessionLocals {
  /** The live session the request's cookie names, if any; read once per request. */
  session: Session | undefined;
}

type SessionContext = Context<unknown, unknown, SessionLocals>;

// HttpOnly keeps page scripts away from the token; SameSite=Strict keeps other sites from
// starting jobs or logging out with it (RFC 6265bis §5.4.7). No Secure: the example serves
// plain HTTP on loopback.
const cookieAttributes = { path: "/", httpOnly: true, sameSite: "Strict" } as const;

/**
 * Reads the session cookie once per request into `ctx.locals.session`; a missing, unknown,
 * revoked or expired token leaves it `undefined`. A long-lived stream keeps this value and asks
 * `sessions.isLive()` again before each resumed step.
 *
 * @example
 * const app = new App().use(sessionMiddleware(sessions));
 */
export function sessionMiddleware(sessions: SessionBook): Middleware<SessionLocals> {
  return middleware<SessionLocals>({
    async before(ctx) {
      ctx.locals.session = await sessions.find(ctx.request.cookie(sessionCookieName));
    },
  });
}

/**
 * The request's session, or a new one with its cookie set on the response. A full session set
 * evicts its oldest session without a running job; when every one has a running job (more job
 * slots than sessions) it is a 503.
 *
 * @example
 * const session = await ensureSession(ctx, sessions);
 */
export async function ensureSession(ctx: SessionContext, sessions: SessionBook): Promise<Session> {
  if (ctx.locals.session !== undefined) return ctx.locals.session;
  const created = await sessions.create();
  if (created === undefined) {
    throw new HttpError(503, "Service Unavailable: too many sessions, retry later", {
      headers: { "Retry-After": "60" },
    });
  }
  ctx.response.setCookie(sessionCookieName, created.token, {
    ...cookieAttributes,
    maxAge: Math.ceil(sessions.ttlMs / 1000),
  });
  ctx.locals.session = created.session;
  return created.session;
}

/**
 * The request's session, or a 403. Not 401: RFC 9110 §15.5.2 requires a `WWW-Authenticate`
 * challenge with it, and a cookie session has no authentication scheme to name.
 *
 * @example
 * const session = requireSession(ctx);
 */
export function requireSession(ctx: SessionContext): Session {
  const session = ctx.locals.session;
  if (session === undefined) {
    throw new HttpError(403, "Forbidden: no session; POST /jobs first");
  }
  return session;
}

/**
 * Revokes the request's session, if any, and deletes its cookie.
 *
 * @example
 * app.route("POST", "/logout", (ctx) => endSession(ctx, sessions));
 */
export async function endSession(ctx: SessionContext, sessions: SessionBook): Promise<void> {
  if (ctx.locals.session !== undefined) await sessions.revoke(ctx.locals.session);
  ctx.locals.session = undefined;
  ctx.response.deleteCookie(sessionCookieName, cookieAttributes);
}
