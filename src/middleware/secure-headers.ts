import { middleware } from "corral";

/**
 * The headers `secureHeaders()` sends by default: helmet's set. Each can be replaced with
 * another value or left out with `false`.
 */
export const defaultSecureHeaders: Readonly<Record<string, string>> = Object.freeze({
  "Content-Security-Policy":
    "default-src 'self'; base-uri 'self'; font-src 'self' https: data:; form-action 'self'; " +
    "frame-ancestors 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; " +
    "script-src-attr 'none'; style-src 'self' https: 'unsafe-inline'",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Origin-Agent-Cluster": "?1",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "X-DNS-Prefetch-Control": "off",
  "X-Download-Options": "noopen",
  "X-Frame-Options": "SAMEORIGIN",
  "X-Permitted-Cross-Domain-Policies": "none",
  "X-XSS-Protection": "0",
});

/** Options of `secureHeaders()`. */
export interface SecureHeadersOptions {
  /** Replacements (a value) or removals (`false`) of the default headers, and extra ones. */
  readonly headers?: Readonly<Record<string, string | false>>;
  /**
   * Set when clients reach the App over TLS (HTTPS at a proxy in front): adds
   * `Strict-Transport-Security` (RFC 6797) and CSP `upgrade-insecure-requests`. Never over plain
   * HTTP: HSTS there would lock browsers out of a site that has no HTTPS.
   */
  readonly behindTls?: boolean;
  /** HSTS `max-age` in seconds; one year by default. */
  readonly hstsMaxAgeSeconds?: number;
  /** HSTS `includeSubDomains`; true by default. */
  readonly hstsIncludeSubDomains?: boolean;
}

/**
 * Sends helmet's default security headers on every answer (set in `before`, so mapped errors
 * carry them too): a same-origin `Content-Security-Policy`, COOP and CORP `same-origin`,
 * `Referrer-Policy: no-referrer`, `X-Content-Type-Options: nosniff`, `X-Frame-Options`, and the
 * rest of `defaultSecureHeaders`; HSTS only with `behindTls`.
 *
 * @example
 * app.use(secureHeaders({ headers: { "X-Frame-Options": "DENY" }, behindTls: true }));
 */
export function secureHeaders(options: SecureHeadersOptions = {}) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...defaultSecureHeaders, ...options.headers })) {
    if (value !== false) headers[name] = value;
  }
  if (options.behindTls === true) {
    const csp = headers["Content-Security-Policy"];
    if (csp !== undefined && options.headers?.["Content-Security-Policy"] === undefined) {
      headers["Content-Security-Policy"] = `${csp}; upgrade-insecure-requests`;
    }
    const maxAge = options.hstsMaxAgeSeconds ?? 31_536_000;
    if (!Number.isSafeInteger(maxAge) || maxAge < 0) {
      throw new TypeError(`corral: hstsMaxAgeSeconds must be a whole number >= 0, got ${maxAge}`);
    }
    const subdomains = options.hstsIncludeSubDomains === false ? "" : "; includeSubDomains";
    headers["Strict-Transport-Security"] ??= `max-age=${maxAge}${subdomains}`;
  }
  const lines = Object.entries(headers);
  return middleware({
    before(ctx) {
      for (const [name, value] of lines) ctx.response.header(name, value);
    },
  });
}
