import { optionNames, refuseUnknownOptions } from "../option-names.ts";

const cookieOptionNames = optionNames<CookieOptions>({
  expires: true,
  maxAge: true,
  path: true,
  domain: true,
  secure: true,
  httpOnly: true,
  sameSite: true,
});

/**
 * Attributes of one `Set-Cookie` header (RFC 6265 §4.1.1). Every attribute is optional; an
 * absent one is not written.
 *
 * @example
 * const options: CookieOptions = { path: "/", secure: true, httpOnly: true, sameSite: "Lax" };
 */
export interface CookieOptions {
  /** Absolute expiry, written as an IMF-fixdate; the year must be 1601 to 9999. */
  readonly expires?: Date;
  /** Seconds until expiry, an integer; zero or negative deletes the cookie (`Max-Age=0`). */
  readonly maxAge?: number;
  /** Path the cookie is sent for; must start with `/`. */
  readonly path?: string;
  /** Domain the cookie is shared with (sub-domains included); a leading `.` is dropped. */
  readonly domain?: string;
  /** Send only over HTTPS; `sameSite: "None"` and the `__Secure-`/`__Host-` prefixes need it. */
  readonly secure?: boolean;
  /** Hide the cookie from page scripts (`document.cookie`). */
  readonly httpOnly?: boolean;
  /** Cross-site sending policy; `"None"` requires `secure: true`. */
  readonly sameSite?: "Strict" | "Lax" | "None";
}

/**
 * The attributes `expiredCookie` takes: the ones that must match the cookie being deleted, and
 * the ones its prefix or `SameSite=None` require.
 *
 * @example
 * const options: ExpiredCookieOptions = { path: "/account", secure: true };
 */
export type ExpiredCookieOptions = Pick<
  CookieOptions,
  "path" | "domain" | "secure" | "sameSite" | "httpOnly"
>;

/**
 * Builds the value of a `Set-Cookie` response header, validated against RFC 6265 §4.1.1 and the
 * name prefixes of RFC 6265bis §4.1.3. An invalid name, value or attribute is a programmer
 * mistake and throws a `TypeError` naming it, so no header a browser would reject or misread is
 * ever sent. The value is written as given: encode it first (for example with
 * `encodeURIComponent`) if it may hold spaces, commas, semicolons or non-ASCII text.
 *
 * @example
 * serializeSetCookie("session", "s3cr3t", { path: "/", secure: true, httpOnly: true });
 * // "session=s3cr3t; Path=/; Secure; HttpOnly"
 */
export function serializeSetCookie(
  name: string,
  value: string,
  options: CookieOptions = {},
): string {
  refuseUnknownOptions(options, cookieOptionNames, "setCookie()");
  checkName(name);
  checkValue(name, value);
  checkSizes(name, value, options);
  checkPrefix(name, options);
  if (options.sameSite !== undefined) checkSameSite(options);

  let header = `${name}=${value}`;
  if (options.expires !== undefined) header += `; Expires=${formatExpires(options.expires)}`;
  if (options.maxAge !== undefined) header += `; Max-Age=${formatMaxAge(options.maxAge)}`;
  if (options.domain !== undefined) header += `; Domain=${normalizeDomain(options.domain)}`;
  if (options.path !== undefined) header += `; Path=${checkPath(options.path)}`;
  if (options.secure === true) header += "; Secure";
  if (options.httpOnly === true) header += "; HttpOnly";
  if (options.sameSite !== undefined) header += `; SameSite=${options.sameSite}`;
  return header;
}

/**
 * Builds a `Set-Cookie` value that deletes a cookie: an empty value, `Max-Age=0`, and an
 * `Expires` in 1970 for old clients that ignore `Max-Age`. A browser replaces only the cookie with
 * the same name, domain and path (RFC 6265 §5.3 step 11), so pass the `path` and `domain` it was
 * set with; a prefixed name needs `secure` (and `path: "/"` for `__Host-`), as when it was set.
 *
 * @example
 * expiredCookie("session", { path: "/", secure: true });
 * // "session=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; Secure"
 */
export function expiredCookie(name: string, options: ExpiredCookieOptions = {}): string {
  return serializeSetCookie(name, "", { ...options, expires: new Date(0), maxAge: 0 });
}

// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" /
// "_" / "`" / "|" / "~" / DIGIT / ALPHA.
function isTokenCharacter(code: number): boolean {
  if ((code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a)) return true;
  if (code >= 0x61 && code <= 0x7a) return true;
  return "!#$%&'*+-.^_`|~".includes(String.fromCharCode(code));
}

// RFC 6265 §4.1.1: cookie-octet = %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E, that is visible
// US-ASCII except DQUOTE, comma, semicolon and backslash.
function isCookieOctet(code: number): boolean {
  return (
    code >= 0x21 && code <= 0x7e && code !== 0x22 && code !== 0x2c && code !== 0x3b && code !== 0x5c
  );
}

function describeCharacter(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f) return `control character U+${hex(code)}`;
  if (code === 0x20) return "a space";
  if (code > 0x7e) return `non-ASCII character "${character}" (U+${hex(code)})`;
  return `"${character}"`;
}

function hex(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, "0");
}

/**
 * RFC 6265bis §5.6 (storage limits browsers apply): a cookie whose name and value together pass
 * 4096 bytes is ignored, and so is an attribute value past 1024 bytes (a `Path` dropped so would
 * leave the cookie on another path). Both are ASCII once checked, so characters are bytes.
 */
const maxCookieNameAndValueBytes = 4096;
/** See `maxCookieNameAndValueBytes`: the longest `Path` or `Domain` a browser keeps. */
const maxCookieAttributeBytes = 1024;

function checkSizes(name: string, value: string, options: CookieOptions): void {
  if (name.length + value.length > maxCookieNameAndValueBytes) {
    throw new TypeError(
      `corral: cookie "${name}" is ${name.length + value.length} bytes of name and value; ` +
        `browsers ignore more than ${maxCookieNameAndValueBytes} (RFC 6265bis §5.6)`,
    );
  }
  for (const attribute of ["path", "domain"] as const) {
    const text = options[attribute];
    if (text !== undefined && text.length > maxCookieAttributeBytes) {
      throw new TypeError(
        `corral: cookie "${name}" has a ${attribute} of ${text.length} bytes; ` +
          `browsers ignore more than ${maxCookieAttributeBytes} (RFC 6265bis §5.6)`,
      );
    }
  }
}

function checkName(name: string): void {
  if (name.length === 0) throw new TypeError("corral: cookie name is empty");
  for (let index = 0; index < name.length; index++) {
    if (!isTokenCharacter(name.charCodeAt(index))) {
      const found = describeCharacter(name[index]!);
      throw new TypeError(
        `corral: cookie name "${name}" contains ${found} at index ${index}; ` +
          "a cookie name must be an HTTP token (RFC 6265 §4.1.1, RFC 9110 §5.6.2)",
      );
    }
  }
}

function checkValue(name: string, value: string): void {
  // RFC 6265 §4.1.1: cookie-value = *cookie-octet / ( DQUOTE *cookie-octet DQUOTE ).
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  const start = quoted ? 1 : 0;
  const end = quoted ? value.length - 1 : value.length;
  for (let index = start; index < end; index++) {
    if (!isCookieOctet(value.charCodeAt(index))) {
      const found = describeCharacter(value[index]!);
      throw new TypeError(
        `corral: value of cookie "${name}" contains ${found} at index ${index}; ` +
          "allowed are visible ASCII except '\"', ',', ';' and '\\' (RFC 6265 §4.1.1): " +
          "encode the value, for example with encodeURIComponent",
      );
    }
  }
}

function checkPrefix(name: string, options: CookieOptions): void {
  // RFC 6265bis user agents match the prefixes case-insensitively, so a "__host-" name is held
  // to the same rules here: otherwise the browser silently drops the cookie.
  const lowerName = name.toLowerCase();
  if (lowerName.startsWith("__secure-") && options.secure !== true) {
    throw new TypeError(
      `corral: cookie "${name}" has the __Secure- prefix and needs secure: true ` +
        "(RFC 6265bis §4.1.3.1)",
    );
  }
  if (!lowerName.startsWith("__host-")) return;
  // RFC 6265bis §4.1.3.2: Secure, Path=/ and no Domain, so the cookie is bound to one origin.
  if (options.secure !== true || options.path !== "/" || options.domain !== undefined) {
    throw new TypeError(
      `corral: cookie "${name}" has the __Host- prefix and needs secure: true, path: "/" and ` +
        "no domain (RFC 6265bis §4.1.3.2)",
    );
  }
}

function checkSameSite(options: CookieOptions): void {
  const sameSite = options.sameSite;
  if (sameSite !== "Strict" && sameSite !== "Lax" && sameSite !== "None") {
    throw new TypeError(
      `corral: cookie sameSite must be "Strict", "Lax" or "None", not ${String(sameSite)}`,
    );
  }
  // The RFC 6265bis storage model ignores a SameSite=None cookie that is not Secure.
  if (sameSite === "None" && options.secure !== true) {
    throw new TypeError(
      'corral: cookie sameSite: "None" needs secure: true; browsers reject it otherwise',
    );
  }
}

function formatExpires(expires: Date): string {
  const year = expires.getUTCFullYear();
  // RFC 9110 §5.6.7: IMF-fixdate has a four-digit year; RFC 6265 §5.1.1 rejects years before
  // 1601. Date.toUTCString writes exactly IMF-fixdate within that range.
  if (Number.isNaN(year)) throw new TypeError("corral: cookie expires is an invalid Date");
  if (year < 1601 || year > 9999) {
    throw new TypeError(
      `corral: cookie expires year ${year} is outside 1601 to 9999 (RFC 6265 §5.1.1)`,
    );
  }
  return expires.toUTCString();
}

function formatMaxAge(maxAge: number): string {
  if (!Number.isSafeInteger(maxAge)) {
    throw new TypeError(`corral: cookie maxAge must be a whole number of seconds, not ${maxAge}`);
  }
  // RFC 6265 §5.2.2 treats every delta-seconds of zero or less as "expire now"; §4.1.1 allows
  // only positive digits for servers, so the delete case is written in its one common form, 0.
  return maxAge <= 0 ? "0" : String(maxAge);
}

function checkPath(path: string): string {
  // RFC 6265 §5.2.4: a path not starting with "/" is silently replaced by the default path.
  if (!path.startsWith("/"))
    throw new TypeError(`corral: cookie path "${path}" must start with "/"`);
  for (let index = 0; index < path.length; index++) {
    const code = path.charCodeAt(index);
    // RFC 6265 §4.1.1: av-octet = any CHAR except CTLs or ";"; CHAR is US-ASCII only.
    if (code < 0x20 || code >= 0x7f || code === 0x3b) {
      const found = describeCharacter(path[index]!);
      throw new TypeError(
        `corral: cookie path "${path}" contains ${found} at index ${index}; ` +
          "percent-encode it (RFC 6265 §4.1.1)",
      );
    }
  }
  return path;
}

// RFC 1034 §3.5 as relaxed by RFC 1123 §2.1: letters, digits and inner hyphens, up to 63 octets.
const domainLabel = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function normalizeDomain(domain: string): string {
  // RFC 6265 §4.1.2.3 and §5.2.3: a leading dot is ignored by user agents; it is dropped so the
  // header matches the §4.1.1 grammar (domain-value = subdomain).
  const bare = domain.startsWith(".") ? domain.slice(1) : domain;
  const labels = bare.split(".");
  if (bare.length === 0 || bare.length > 253 || !labels.every((label) => domainLabel.test(label))) {
    throw new TypeError(
      `corral: cookie domain "${domain}" is not a valid domain name: use letters, digits, ` +
        "hyphens and dots, labels of 1 to 63 characters not starting or ending with a hyphen " +
        "(RFC 6265 §4.1.1, RFC 1123 §2.1); encode internationalized names as punycode",
    );
  }
  return bare;
}
