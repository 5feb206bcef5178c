// Byte classification tables, built once. Each is indexed by a byte value.

function table(predicate: (byte: number) => boolean): Uint8Array {
  const classes = new Uint8Array(256);
  for (let byte = 0; byte < 256; byte++) classes[byte] = predicate(byte) ? 1 : 0;
  return classes;
}

const isAlpha = (b: number) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isHex = (b: number) => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);

/** RFC 9110 §5.6.2 tchar: the bytes of a token (method, header name). */
export const tokenBytes = table(
  (b) => isAlpha(b) || isDigit(b) || "!#$%&'*+-.^_`|~".includes(String.fromCharCode(b)),
);

// RFC 3986 §2-3: unreserved, sub-delims, ":" "@" "/", the bytes a path may hold literally.
const pchar = (b: number) =>
  isAlpha(b) || isDigit(b) || "-._~!$&'()*+,;=:@/".includes(String.fromCharCode(b));

/**
 * Bytes allowed literally in the path of an origin-form or absolute-form target, outside `%`
 * escapes: RFC 3986 pchar and "/", plus `[ ] | ^`, which clients send raw (the WHATWG URL path
 * percent-encode set leaves `[ ] |`, and `^` until 2024: Chromium sends `/dir/[id]`, Node's URL
 * and curl `/a^b`). RFC 9112 §3.2 lets a server accept them. `?` ends the path. Refused: space,
 * controls, DEL, `"`, `#`, `<`, `>`, `\`, `{`, `}`, backquote (WHATWG encodes all of these in a
 * path) and every non-ASCII byte.
 */
export const pathBytes = table((b) => pchar(b) || "[]|^".includes(String.fromCharCode(b)));

/**
 * Bytes allowed literally in the query: the path bytes, "?", and every other byte the WHATWG
 * query percent-encode set leaves raw, as browsers send them: `{ }`, backquote and `\` (a form
 * field named `files[]`, `?q={a}`; Chromium sends `?a=b\c` raw), and `%` whether or not two hex
 * digits follow (Chromium sends a typed `?off=50%` raw). The query is the application's to
 * decode, where a malformed escape is its error (the App's decoders throw `DecodeError`, a 400,
 * when a handler decodes that value). Refused: space, controls, DEL, `"`, `#`, `<`, `>` (which
 * browsers encode) and non-ASCII.
 */
export const queryBytes = table(
  (b) => pathBytes[b] === 1 || "?{}`%\\".includes(String.fromCharCode(b)),
);

/** Hex digits, for `%` escapes and chunk sizes. */
export const hexBytes = table(isHex);

/** RFC 9110 §5.5 field-vchar, SP and HTAB: the bytes allowed inside a field value. */
export const fieldValueBytes = table((b) => b === 0x09 || (b >= 0x20 && b !== 0x7f));

/** RFC 3986 §3.2.2 reg-name and port bytes (unreserved, sub-delims, ":"), for `Host`. */
export const hostBytes = table(
  (b) => isAlpha(b) || isDigit(b) || "-._~!$&'()*+,;=:".includes(String.fromCharCode(b)),
);

/**
 * `hostBytes` without ":": the bytes of a reg-name or IPv4 address, which a port's ":" ends (so
 * the scan of a `Host` value looks each byte up once).
 */
export const regNameBytes = table((b) => hostBytes[b] === 1 && b !== 0x3a);

/** The value of a hex digit byte; only meaningful where `hexBytes` is 1. */
export function hexValue(byte: number): number {
  if (byte <= 0x39) return byte - 0x30;
  return (byte | 0x20) - 0x61 + 10;
}
