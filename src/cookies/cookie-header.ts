import { isTokenCode, trimWhitespace } from "../field-syntax.ts";

/**
 * One `name=value` pair of a request `Cookie` header, as the client sent it.
 *
 * @example
 * const entry: CookieEntry = { name: "theme", value: "dark" };
 */
export interface CookieEntry {
  readonly name: string;
  readonly value: string;
}

/**
 * Parses a request `Cookie` header value (RFC 6265 §4.2.1: `name=value; name2=value2`) into its
 * pairs, in the order sent. Duplicates are kept: a browser lists the cookie with the longest
 * path first (RFC 6265 §5.4 step 2), so the first of a name is the most specific one.
 *
 * Lenient by design, because one odd cookie (set by a script or another service on the domain)
 * must not hide the others: a piece is skipped, never thrown on, when it has no `=`, an empty or
 * non-token name, or a control character other than tab. Whitespace around names and values is
 * trimmed. Values are returned undecoded (no percent-decoding), except that one pair of
 * surrounding double quotes is removed, as Go's net/http and jshttp/cookie do: RFC 6265 §4.1.1
 * makes them a wrapper, not part of the cookie-octets, so `a="x"` and `a=x` read the same.
 *
 * @example
 * parseCookieHeader('theme=dark; session="abc"; junk');
 * // [{ name: "theme", value: "dark" }, { name: "session", value: "abc" }]
 */
export function parseCookieHeader(header: string): CookieEntry[] {
  const entries: CookieEntry[] = [];
  // RFC 6265 §4.2.1: cookie-string = cookie-pair *( ";" SP cookie-pair ); the space is optional
  // here because some clients omit it.
  // The next "=" at or after `start` (the length when none), kept across pieces: searching
  // afresh in each piece would rescan a long run of pieces without "=" once per piece.
  let equals = -1;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(";", start);
    if (end < 0) end = header.length;
    if (equals < start) {
      equals = header.indexOf("=", start);
      if (equals < 0) equals = header.length;
    }
    if (equals < end) {
      const name = trimWhitespace(header.slice(start, equals));
      const value = unquote(trimWhitespace(header.slice(equals + 1, end)));
      if (isToken(name) && !hasControlCharacter(value)) entries.push({ name, value });
    }
    start = end + 1;
  }
  return entries;
}

/**
 * The value of the first cookie named `name` (the most specific one, RFC 6265 §5.4), or
 * `undefined` when there is none. Names compare case-sensitively (RFC 6265 §5.3 step 11).
 *
 * @example
 * findCookie(parseCookieHeader("a=1; b=2; a=3"), "a"); // "1"
 */
export function findCookie(entries: readonly CookieEntry[], name: string): string | undefined {
  for (const entry of entries) {
    if (entry.name === name) return entry.value;
  }
  return undefined;
}

function unquote(value: string): string {
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  return quoted ? value.slice(1, -1) : value;
}

// Cookie names are tokens (RFC 6265 §4.1.1).
function isToken(name: string): boolean {
  if (name === "") return false;
  for (let index = 0; index < name.length; index++) {
    if (!isTokenCode(name.charCodeAt(index))) return false;
  }
  return true;
}

// RFC 6265bis ignores a cookie holding a control character other than tab; so does this parser.
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}
