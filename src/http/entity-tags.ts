import { skipListSeparators } from "../field-syntax.ts";

// RFC 9110 §8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text.
// Lists (If-Match, If-None-Match) are scanned once, left to right, with no regular expression.

const quote = 0x22;

/**
 * Whether `candidate` is a well-formed entity-tag as sent on the wire (`"abc"` or `W/"abc"`).
 *
 * @example
 * isEntityTag('W/"v1"'); // true
 * isEntityTag("v1"); // false
 */
export function isEntityTag(candidate: string): boolean {
  const start = candidate.startsWith("W/") ? 2 : 0;
  return opaqueTagEnd(candidate, start) === candidate.length;
}

/** One past the closing quote of the opaque-tag opening at `start`, or -1 when malformed. */
function opaqueTagEnd(text: string, start: number): number {
  if (text.charCodeAt(start) !== quote) return -1;
  for (let index = start + 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === quote) return index + 1;
    if (code < 0x21 || code === 0x7f || code > 0xff) return -1;
  }
  return -1;
}

/** `tag` without its weak prefix: what weak comparison compares (RFC 9110 §8.8.3.2). */
function opaquePart(tag: string): string {
  return tag.startsWith("W/") ? tag.slice(2) : tag;
}

/**
 * The suffixes `compress()` gives the tag of a coded form (`"v1"` becomes `"v1-br"`), so that a
 * strong tag changes with the content coding (RFC 9110 §8.8.3).
 */
const codingTagSuffixes = ["-br", "-zstd", "-gzip"] as const;

/**
 * Whether the list field `value` (`*` or entity-tags separated by commas) holds a tag that
 * matches `current`: by strong comparison (both strong and equal) or weak comparison (the opaque
 * parts equal). `*` matches any current representation. A malformed member matches nothing and
 * ends the scan: what follows it cannot be framed reliably. With `codedForms`, a member that is
 * `current` with a coding suffix (`"v1-gzip"` for `"v1"`) matches too, by the same comparison:
 * it names a coded form of the current representation.
 */
export function listMatches(
  value: string,
  current: string | undefined,
  comparison: "strong" | "weak",
  codedForms = false,
): boolean {
  let index = skipListSeparators(value, 0);
  if (value.charCodeAt(index) === 0x2a) {
    const end = skipListSeparators(value, index + 1);
    return end === value.length;
  }
  if (current === undefined) return false;
  const currentWeak = current.startsWith("W/");
  const currentOpaque = opaquePart(current);
  while (index < value.length) {
    const weak = value.startsWith("W/", index);
    const opaqueStart = weak ? index + 2 : index;
    const end = opaqueTagEnd(value, opaqueStart);
    if (end < 0) return false;
    const comparable = comparison === "weak" || (!weak && !currentWeak);
    if (comparable && sameOpaque(value, opaqueStart, end, currentOpaque, codedForms)) return true;
    index = skipListSeparators(value, end);
  }
  return false;
}

/**
 * Whether the opaque-tag `value[start, end)` equals `currentOpaque`, or (with `codedForms`) is it
 * with one coding suffix before the closing quote.
 */
function sameOpaque(
  value: string,
  start: number,
  end: number,
  currentOpaque: string,
  codedForms: boolean,
): boolean {
  const length = end - start;
  if (length === currentOpaque.length) return value.startsWith(currentOpaque, start);
  if (!codedForms) return false;
  for (const suffix of codingTagSuffixes) {
    if (length !== currentOpaque.length + suffix.length) continue;
    if (!value.startsWith(suffix, end - 1 - suffix.length)) continue;
    // The opening quote and the content before the suffix, character by character: no slice.
    const contentLength = currentOpaque.length - 1;
    for (let index = 0; index < contentLength; index++) {
      if (value.charCodeAt(start + index) !== currentOpaque.charCodeAt(index)) return false;
    }
    return true;
  }
  return false;
}
