import type { Context } from "../context.ts";

/**
 * Which `Origin` values may open a WebSocket (RFC 6455 §10.2: the server must check the origin
 * of browser requests, since a page on any site can open a socket to it with the user's
 * cookies). A list of exact origins (`"https://app.example.com"`), or a function. Without one,
 * only the server's own origin is allowed: `http://` or `https://` plus the request's `Host`.
 */
export type OriginPolicy =
  | readonly string[]
  | ((origin: string, ctx: Context<unknown, Readonly<Record<string, string>>, object>) => boolean);

/**
 * Whether the handshake's origin passes: an absent `Origin` (a client that is not a browser)
 * passes unless `allowMissingOrigin` is false; a present one must match the policy.
 */
export function originAllowed(
  origin: string | undefined,
  policy: OriginPolicy | undefined,
  allowMissingOrigin: boolean,
  ctx: Context<unknown, Readonly<Record<string, string>>, object>,
): boolean {
  if (origin === undefined) return allowMissingOrigin;
  if (policy === undefined) {
    const host = ctx.request.header("host");
    return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
  }
  if (typeof policy === "function") return policy(origin, ctx) === true;
  return policy.includes(origin);
}

/** Checks an `origins` option at registration: a list of strings or a function. */
export function validateOriginPolicy(policy: unknown): void {
  if (policy === undefined || typeof policy === "function") return;
  if (Array.isArray(policy) && policy.every((origin) => typeof origin === "string")) return;
  throw new TypeError("corral: origins must be a list of origin strings or a function");
}
