import { latin1StringReusing } from "./ascii.ts";

const equalsCode = 0x3d;
const ampersandCode = 0x26;

/** The last name `firstQueryValue` found to hold neither "=" nor "&". */
let lastSplitFreeName = "";
/**
 * The last value `firstQueryValue` made. Queries repeat their values (a page number, a flag, a
 * sort order, a client's key): when the bytes spell it again it is returned as it is, where
 * making a string of bytes is a call into the runtime of about 400 instructions and an
 * allocation. A value that differs is usually told apart by its length or first character.
 */
let lastValue = "";

/**
 * The undecoded value of the first entry named `name` in the query `bytes[start, end)`, read as
 * `application/x-www-form-urlencoded` pieces (WHATWG URL §5.1: pieces between "&"s, empty ones
 * skipped, each split at its first "="), the name compared raw with the piece's Latin-1 text;
 * `""` for a piece without "=", undefined when none matches. Only the value's string is made:
 * scanning the bytes costs a fraction of making the query's string and walking it, and the
 * value comes out flat, where a slice of a string is a substring the runtime must copy before
 * its characters are read. Each byte is looked at most twice.
 */
export function firstQueryValue(
  bytes: Uint8Array,
  start: number,
  end: number,
  name: string,
): string | undefined {
  const nameLength = name.length;
  // A name holding "=" or "&" can never match: pieces split at them. Handlers ask for the same
  // few names again and again, so the last name found free of both is not looked at again.
  if (name !== lastSplitFreeName) {
    for (let index = 0; index < nameLength; index++) {
      const code = name.charCodeAt(index);
      if (code === equalsCode || code === ampersandCode) return undefined;
    }
    lastSplitFreeName = name;
  }
  let piece = start;
  while (piece < end) {
    let index = piece;
    let matched = 0;
    while (matched < nameLength && index < end && bytes[index] === name.charCodeAt(matched)) {
      index++;
      matched++;
    }
    if (matched === nameLength) {
      // An empty name matches only a piece that is not empty.
      const code = index < end ? bytes[index] : ampersandCode;
      if (code === ampersandCode && index > piece) return "";
      if (code === equalsCode) {
        let valueEnd = index + 1;
        while (valueEnd < end && bytes[valueEnd] !== ampersandCode) valueEnd++;
        if (valueEnd === index + 1) return "";
        lastValue = latin1StringReusing(bytes, index + 1, valueEnd, lastValue);
        return lastValue;
      }
    }
    while (index < end && bytes[index] !== ampersandCode) index++;
    piece = index + 1;
  }
  return undefined;
}
