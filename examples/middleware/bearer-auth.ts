import { middleware, type ResponseDraft, stopChain } from "corral";
import { isBearerTokenSyntax, type TokenTable, type User } from "./token-table.ts";

/**
 * The local `bearerAuth` adds: the authenticated user.
 *
 * @example
 * app.route("GET", "/me", (ctx) => ctx.response.json(200, ctx.locals.user));
 */
export interface AuthLocals {
  user: User;
}

/**
 * Authenticates `Authorization: Bearer <token>` (RFC 6750 §2.1) against `tokens` and adds the
 * typed local `user`. Without bearer credentials the answer is a 401 with a bare challenge;
 * an unknown token is a 401 with `error="invalid_token"`; a token that is not a `b64token` is
 * a 400 with `error="invalid_request"` (RFC 6750 §3, §3.1).
 *
 * It answers and returns `stopChain` instead of throwing: the 401 or 400 is an expected answer,
 * drafted as it wants (the challenge, a JSON body), and nothing after it runs. The headers earlier
 * middleware set (the request id) stay and their `after` hooks (the timing) run, as they also
 * do on the answer to a thrown error.
 *
 * @example
 * const tokens = new TokenTable({ t0k3n: { id: "1", name: "Ada" } });
 * const app = new App().use(bearerAuth(tokens));
 * app.route("GET", "/me", (ctx) => ctx.response.json(200, ctx.locals.user));
 */
export function bearerAuth(tokens: TokenTable, realm = "corral") {
  if (!/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(realm)) {
    throw new TypeError("a realm must be printable ASCII without quotes or backslashes");
  }
  return middleware<AuthLocals>({
    before(ctx) {
      const token = bearerCredentials(ctx.request.header("authorization") ?? "");
      if (token === undefined) {
        // RFC 6750 §3.1: a request without credentials gets no error code.
        return refuse(ctx.response, realm, 401, undefined, "send Authorization: Bearer <token>");
      }
      if (!isBearerTokenSyntax(token)) {
        return refuse(ctx.response, realm, 400, "invalid_request", "the bearer token is malformed");
      }
      const user = tokens.find(token);
      if (user === undefined) {
        return refuse(ctx.response, realm, 401, "invalid_token", "the bearer token is not valid");
      }
      ctx.locals.user = user;
    },
  });
}

/**
 * The credentials of an `Authorization` value whose scheme is `Bearer`, or undefined for another
 * scheme or none. RFC 9110 §11.1: the scheme is case-insensitive; §11.4: one or more spaces
 * follow it. One pass over the client's text, no pattern that could backtrack over it.
 *
 * @example
 * bearerCredentials("bearer  abc"); // "abc"
 * bearerCredentials("Basic abc"); // undefined
 */
export function bearerCredentials(authorization: string): string | undefined {
  const value = authorization.trim();
  const schemeEnd = value.indexOf(" ");
  if (schemeEnd <= 0 || value.slice(0, schemeEnd).toLowerCase() !== "bearer") return undefined;
  let start = schemeEnd;
  while (value.charCodeAt(start) === 0x20) start++;
  return value.slice(start);
}

/** Answers with a JSON error and the Bearer challenge (RFC 6750 §3), and stops the chain. */
function refuse(
  response: ResponseDraft,
  realm: string,
  status: 400 | 401,
  error: string | undefined,
  message: string,
): typeof stopChain {
  response.json(status, { error: error ?? "unauthorized", message });
  const code = error === undefined ? "" : `, error="${error}"`;
  response.header("WWW-Authenticate", `Bearer realm="${realm}"${code}`);
  return stopChain;
}
