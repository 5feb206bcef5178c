// The common syntax of field values (RFC 9110 §5.6), as byte tests and linear scans. Request
// data never meets a regular expression here: every scan looks at each character once.

const tab = 0x09;
const space = 0x20;
const quote = 0x22;
const backslash = 0x5c;

/** Marks ASCII letters, digits and the characters of `others`; indexed by character code. */
export function characterTable(others: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let code = 0x30; code <= 0x39; code++) table[code] = 1;
  for (let code = 0x41; code <= 0x5a; code++) table[code] = 1;
  for (let code = 0x61; code <= 0x7a; code++) table[code] = 1;
  for (let index = 0; index < others.length; index++) table[others.charCodeAt(index)] = 1;
  return table;
}

// RFC 9110 §5.6.2: tchar.
const tokenTable = characterTable("!#$%&'*+-.^_`|~");

/**
 * Whether `code` is a `tchar` (RFC 9110 §5.6.2); false past the end of a string (NaN).
 *
 * @example
 * isTokenCode("a".charCodeAt(0)); // true
 * isTokenCode(" ".charCodeAt(0)); // false
 */
export function isTokenCode(code: number): boolean {
  return tokenTable[code] === 1;
}

/** Whether `code` is optional whitespace: space or horizontal tab (RFC 9110 §5.6.3). */
export function isWhitespaceCode(code: number): boolean {
  return code === space || code === tab;
}

/** Where the run of tokens characters from `start` ends (`start` when there is none). */
export function tokenEnd(text: string, start: number): number {
  let index = start;
  while (isTokenCode(text.charCodeAt(index))) index++;
  return index;
}

/** Where the run of spaces and tabs from `start` ends. */
export function skipWhitespace(text: string, start: number): number {
  let index = start;
  while (isWhitespaceCode(text.charCodeAt(index))) index++;
  return index;
}

/**
 * `text` without leading and trailing spaces and tabs (RFC 9110 §5.6.3 OWS). `String.trim` would
 * also remove NBSP and line terminators, which are data in a field value.
 */
export function trimWhitespace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isWhitespaceCode(text.charCodeAt(start))) start++;
  while (end > start && isWhitespaceCode(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

// RFC 9110 §5.6.4: qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text, and a quoted-pair
// escapes HTAB / SP / VCHAR / obs-text. Both exclude the other controls and DEL.
function isQuotedTextCode(code: number): boolean {
  return code === tab || (code >= space && code !== 0x7f && code <= 0xff);
}

/**
 * Where the quoted-string opening at `start` (a `"`) ends, one past its closing quote, or -1 when
 * it is unterminated or holds a character RFC 9110 §5.6.4 does not allow.
 */
export function quotedStringEnd(text: string, start: number): number {
  let index = start + 1;
  for (;;) {
    const code = text.charCodeAt(index);
    if (code === quote) return index + 1;
    if (code === backslash) {
      index++;
      if (!isQuotedTextCode(text.charCodeAt(index))) return -1;
    } else if (!isQuotedTextCode(code)) {
      return -1;
    }
    index++;
  }
}

/**
 * The text of a well-formed quoted-string `text[start, end)` (quotes included) with every
 * quoted-pair replaced by the character it escapes.
 */
export function unquoteString(text: string, start: number, end: number): string {
  const last = end - 1;
  let chunkStart = start + 1;
  let index = text.indexOf("\\", chunkStart);
  if (index < 0 || index >= last) return text.slice(chunkStart, last);
  // Chunks are gathered in an array and joined once: repeated `+=` could build a deep rope.
  const chunks: string[] = [];
  while (index >= 0 && index < last) {
    chunks.push(text.slice(chunkStart, index));
    chunkStart = index + 1;
    index = text.indexOf("\\", index + 2);
  }
  chunks.push(text.slice(chunkStart, last));
  return chunks.join("");
}

/** Where the run of spaces, tabs and commas from `start` ends: empty list members are allowed
 * (RFC 9110 §5.6.1), so a list scan skips them all at once. */
export function skipListSeparators(text: string, start: number): number {
  let index = start;
  for (;;) {
    const code = text.charCodeAt(index);
    if (code !== space && code !== tab && code !== 0x2c) return index;
    index++;
  }
}
