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

/**
 * RFC 3986 §2-3: bytes allowed literally in an origin-form or absolute-form target outside `%`
 * escapes: unreserved, sub-delims, ":" "@" "/" "?". Everything else (`"`, `|`, `^`, `#`, `[`,
 * `]`, `{`, `}`, `\`, `<`, `>`, backquote, controls, non-ASCII) is rejected.
 */
export const targetBytes = table(
  (b) => isAlpha(b) || isDigit(b) || "-._~!$&'()*+,;=:@/?".includes(String.fromCharCode(b)),
);

/** Hex digits, for `%` escapes and chunk sizes. */
export const hexBytes = table(isHex);

/** RFC 9110 §5.5 field-vchar, SP and HTAB: the bytes allowed inside a field value. */
export const fieldValueBytes = table((b) => b === 0x09 || (b >= 0x20 && b !== 0x7f));

/** RFC 3986 §3.2.2 reg-name and port bytes (unreserved, sub-delims, ":"), for `Host`. */
export const hostBytes = table(
  (b) => isAlpha(b) || isDigit(b) || "-._~!$&'()*+,;=:".includes(String.fromCharCode(b)),
);

/** The value of a hex digit byte; only meaningful where `hexBytes` is 1. */
export function hexValue(byte: number): number {
  if (byte <= 0x39) return byte - 0x30;
  return (byte | 0x20) - 0x61 + 10;
}
