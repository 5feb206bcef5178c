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
  for (const piece of header.split(";")) {
    const equals = piece.indexOf("=");
    if (equals === -1) continue;
    const name = trimWhitespace(piece.slice(0, equals));
    const value = unquote(trimWhitespace(piece.slice(equals + 1)));
    if (token.test(name) && !hasControlCharacter(value)) entries.push({ name, value });
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

// RFC 9110 §5.6.3: OWS is spaces and horizontal tabs only; String.trim would also take NBSP and
// line terminators, which are not whitespace in a header.
function trimWhitespace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isWhitespace(text.charCodeAt(start))) start++;
  while (end > start && isWhitespace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function unquote(value: string): string {
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  return quoted ? value.slice(1, -1) : value;
}

// RFC 9110 §5.6.2 tchar; cookie names are tokens (RFC 6265 §4.1.1).
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

// RFC 6265bis ignores a cookie holding a control character other than tab; so does this parser.
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}
