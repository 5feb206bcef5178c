/**
 * Reads a `Last-Event-ID` request header as one of the integer ids an `EventRing` issues, or
 * `undefined` ("start fresh") for a missing header or any other value.
 *
 * Only the canonical decimal form is accepted (`0` or digits without a leading zero, at most
 * `Number.MAX_SAFE_INTEGER`): WHATWG HTML §9.2.4 has the client send back exactly the id string
 * the server last sent, and these streams only send that form, so anything else was not issued
 * by this server. `0`, the id before the first event, is accepted. No whitespace is trimmed: the
 * engine already drops the optional whitespace around field values (RFC 9110 §5.5).
 *
 * @example
 * parseLastEventId("42"); // 42
 * parseLastEventId("042"); // undefined
 * parseLastEventId(undefined); // undefined
 */
export function parseLastEventId(header: string | undefined): number | undefined {
  if (header === undefined || !isCanonicalInteger(header)) return undefined;
  const id = Number(header);
  // Beyond MAX_SAFE_INTEGER, Number() rounds, so the id read would not be the id sent.
  return id <= Number.MAX_SAFE_INTEGER ? id : undefined;
}

// MAX_SAFE_INTEGER has 16 digits; the length bound keeps Number() away from long inputs.
const maxDigits = 16;

/** `0`, or 1 to 16 digits without a leading zero; the length is checked before any digit. */
function isCanonicalInteger(text: string): boolean {
  if (text.length === 0 || text.length > maxDigits) return false;
  if (text === "0") return true;
  if (text.charCodeAt(0) === 0x30) return false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}
