import { isTokenCode, middleware, optionNames, refuseUnknownOptions } from "corral";

const secureHeadersOptionNames = optionNames<SecureHeadersOptions>({
  headers: true,
  behindTls: true,
  hstsMaxAgeSeconds: true,
  hstsIncludeSubDomains: true,
});

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
 * rest of `defaultSecureHeaders`; HSTS only with `behindTls`. Option names are matched without
 * case, and a bad name or value is a `TypeError` here, not a 500 per request. The headers are
 * drafted before the handler runs, and `ctx.response.header()` adds a line: a handler that wants
 * another value for one of them (a page's own CSP, a popup's COOP) removes it first with
 * `ctx.response.removeHeader(name)`, or the two lines go out together and browsers apply both
 * (two CSPs) or neither (a COOP list is invalid).
 *
 * @example
 * app.use(secureHeaders({ headers: { "X-Frame-Options": "DENY" }, behindTls: true }));
 */
export function secureHeaders(options: SecureHeadersOptions = {}) {
  refuseUnknownOptions(options, secureHeadersOptionNames, "secureHeaders()");
  // Keyed by lower-case name (RFC 9110 §5.1: names are case-insensitive), so an option named
  // "x-frame-options" replaces or removes the default "X-Frame-Options" instead of adding a
  // second line beside it.
  const headers = new Map<string, { readonly name: string; value: string }>();
  for (const [name, value] of Object.entries(defaultSecureHeaders)) {
    headers.set(name.toLowerCase(), { name, value });
  }
  const given = new Set<string>();
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const key = name.toLowerCase();
    given.add(key);
    if (value === false) headers.delete(key);
    else headers.set(key, { name, value: checkedHeader(name, value) });
  }
  if (options.behindTls === true) {
    const csp = headers.get("content-security-policy");
    if (csp !== undefined && !given.has("content-security-policy")) {
      csp.value = `${csp.value}; upgrade-insecure-requests`;
    }
    const maxAge = options.hstsMaxAgeSeconds ?? 31_536_000;
    if (!Number.isSafeInteger(maxAge) || maxAge < 0) {
      throw new TypeError(`corral: hstsMaxAgeSeconds must be a whole number >= 0, got ${maxAge}`);
    }
    const subdomains = options.hstsIncludeSubDomains === false ? "" : "; includeSubDomains";
    if (!given.has("strict-transport-security")) {
      headers.set("strict-transport-security", {
        name: "Strict-Transport-Security",
        value: `max-age=${maxAge}${subdomains}`,
      });
    }
  }
  const lines = [...headers.values()].map(({ name, value }) => [name, value] as const);
  return middleware({
    before(ctx) {
      for (const [name, value] of lines) ctx.response.header(name, value);
    },
  });
}

/**
 * A header given to `secureHeaders()`, checked when the middleware is made: a bad one would
 * otherwise fail every request with a 500.
 */
function checkedHeader(name: string, value: unknown): string {
  if (typeof value !== "string") {
    throw new TypeError(`corral: secureHeaders header ${name} must be a string or false`);
  }
  let validName = name.length > 0;
  for (let index = 0; index < name.length && validName; index++) {
    validName = isTokenCode(name.charCodeAt(index));
  }
  if (!validName)
    throw new TypeError(`corral: secureHeaders header name ${JSON.stringify(name)} is not a token`);
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f || code > 0xff) {
      throw new TypeError(
        `corral: secureHeaders header ${name} has a character no header value may hold (code ${code})`,
      );
    }
  }
  return value;
}
