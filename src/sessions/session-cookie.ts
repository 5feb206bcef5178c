import { type CookieOptions, serializeSetCookie } from "../cookies/set-cookie.ts";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import type { RequestView } from "../request-view.ts";
import type { ResponseDraft } from "../response-draft.ts";

const sessionCookieOptionNames = optionNames<SessionCookieOptions>({
  name: true,
  secure: true,
});

/**
 * Options of `new SessionCookie()`.
 *
 * @example
 * const options: SessionCookieOptions = { name: "__Host-session", secure: true };
 */
export interface SessionCookieOptions {
  /** The cookie's name; `"session"` by default. A `__Host-` name needs `secure: true`. */
  readonly name?: string;
  /**
   * Whether to add `Secure`, so browsers send the cookie over HTTPS only. Required, with no
   * default, because the right answer depends on the deployment: `true` behind HTTPS, `false`
   * only for plain local HTTP.
   */
  readonly secure: boolean;
}

/**
 * Writes, clears and reads the cookie that carries a session token. The cookie is `HttpOnly`
 * (page scripts cannot read the token), `SameSite=Lax` (not sent on cross-site POSTs, a CSRF
 * defence for forms; RFC 6265bis §8.8), `Path=/` (one cookie for the whole site, so clearing it
 * hits the same one; RFC 6265 §5.3 step 11), and `Secure` when configured. Its `Max-Age` is the
 * session's remaining lifetime; the server's own expiry is what counts, the cookie only stops the
 * browser from sending a token that is already dead.
 *
 * @example
 * const cookie = new SessionCookie({ secure: false });
 * cookie.set(ctx.response, sessions.create({ user: "ada" }));
 * const session = sessions.get(cookie.read(ctx.request));
 * cookie.clear(ctx.response); // on logout
 */
export class SessionCookie {
  /** The cookie's name. */
  readonly name: string;
  /** Whether the cookie is `Secure`. */
  readonly secure: boolean;
  readonly #attributes: CookieOptions;

  constructor(options: SessionCookieOptions) {
    refuseUnknownOptions(options, sessionCookieOptionNames, "new SessionCookie()");
    if (typeof options.secure !== "boolean") {
      throw new TypeError("corral: SessionCookie needs secure: true (HTTPS) or false (plain HTTP)");
    }
    this.name = options.name ?? "session";
    this.secure = options.secure;
    this.#attributes = { path: "/", secure: this.secure, httpOnly: true, sameSite: "Lax" };
    // A bad name (or a __Host-/__Secure- name without secure) is a TypeError here, at start-up,
    // rather than on the first login.
    serializeSetCookie(this.name, "", this.#attributes);
  }

  /**
   * Adds the `Set-Cookie` that hands `session`'s token to the client, with `Max-Age` equal to
   * its remaining lifetime in whole seconds, rounded up so that a session that is still valid
   * never gets `Max-Age=0`, which would delete the cookie (RFC 6265 §5.2.2).
   *
   * @example
   * cookie.set(ctx.response, session); // session=…; Max-Age=1800; Path=/; HttpOnly; SameSite=Lax
   */
  set(
    response: ResponseDraft,
    session: { readonly token: string; readonly remainingMs: number },
  ): void {
    response.setCookie(this.name, session.token, {
      ...this.#attributes,
      maxAge: Math.ceil(session.remainingMs / 1000),
    });
  }

  /**
   * Adds the `Set-Cookie` that deletes the cookie (`Max-Age=0` and an `Expires` in 1970).
   *
   * @example
   * sessions.revoke(cookie.read(ctx.request));
   * cookie.clear(ctx.response);
   */
  clear(response: ResponseDraft): void {
    response.deleteCookie(this.name, this.#attributes);
  }

  /**
   * The token the request carries in this cookie, or `undefined`. It is read from the borrowed
   * request view, so call it while the handler runs; it is not checked here: give it to
   * `SessionStore.get`.
   *
   * @example
   * const session = sessions.get(cookie.read(ctx.request));
   */
  read(request: RequestView): string | undefined {
    return request.cookie(this.name);
  }
}
