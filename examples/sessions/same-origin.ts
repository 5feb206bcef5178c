/**
 * Whether a request that changes state was sent by this site's own pages. Browsers send `Origin`
 * on every POST (Fetch standard, RFC 6454), so a form that another site posts here (a login CSRF:
 * signing the visitor in to the attacker's account) carries that site's origin, or `null` from a
 * sandboxed or privacy-sensitive context: both are refused. The origin the request was sent to is
 * `scheme://Host`; `https` when the site is served over TLS, even behind a proxy that ends TLS.
 *
 * A request without `Origin` is let through: it does not come from a browser (curl and scripts
 * send none), and such a client can send whatever headers it likes anyway. The check defends the
 * visitor's browser, not the server.
 *
 * @example
 * if (!isSameOrigin(ctx.request, "http")) throw new HttpError(403, "Forbidden: cross-origin");
 */
export function isSameOrigin(
  request: { header(name: string): string | undefined },
  scheme: "http" | "https",
): boolean {
  const origin = request.header("origin");
  if (origin === undefined) return true;
  const host = request.header("host");
  // Origin serialises the host in lower case (RFC 6454 §6.2); a Host header may use any case.
  return host !== undefined && origin === `${scheme}://${host.toLowerCase()}`;
}
