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
 * Whether the list field `value` (`*` or entity-tags separated by commas) holds a tag that
 * matches `current`: by strong comparison (both strong and equal) or weak comparison (the opaque
 * parts equal). `*` matches any current representation. A malformed member matches nothing and
 * ends the scan: what follows it cannot be framed reliably.
 */
export function listMatches(
  value: string,
  current: string | undefined,
  comparison: "strong" | "weak",
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
    const matches =
      comparison === "weak"
        ? value.startsWith(currentOpaque, opaqueStart) && opaqueStart + currentOpaque.length === end
        : !weak &&
          !currentWeak &&
          value.startsWith(currentOpaque, opaqueStart) &&
          opaqueStart + currentOpaque.length === end;
    if (matches) return true;
    index = skipListSeparators(value, end);
  }
  return false;
}
