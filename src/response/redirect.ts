// RFC 9110 §15.4: the redirection codes that carry a Location. 304 is a cache answer, not a
// redirect (§15.4.5); 305 is deprecated (§15.4.6) and 306 unused (§15.4.7).
const redirectStatuses: ReadonlySet<number> = new Set([300, 301, 302, 303, 307, 308]);

// RFC 3986 §2: unreserved, reserved and "%". Everything else (space, '"', "<", ">", "\", "^",
// "`", "{", "|", "}") is not part of a URI and has to be percent-encoded.
const uriCharacters = /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/;

/**
 * Checks a redirect before any of it is sent: `status` must be 300, 301, 302, 303, 307 or 308
 * and `location` a URI reference (RFC 9110 §10.2.2) made only of URI characters (RFC 3986 §2),
 * relative or absolute. A mistake is a programmer error and throws a `TypeError` that names the
 * character and how to encode it. CR, LF and NUL are refused first of all, since in a header
 * they would split the response. The reference's structure (scheme, host, path) is not parsed,
 * and where it points is the caller's decision: validate user-supplied targets against open
 * redirects yourself.
 *
 * @example
 * validateRedirect(303, "/orders/42?created=1"); // passes
 * validateRedirect(302, "/search?q=café"); // throws: encode it with encodeURI()
 */
export function validateRedirect(status: number, location: string): void {
  if (!redirectStatuses.has(status)) {
    throw new TypeError(
      `corral: redirect status ${status} is not a redirect; use 300, 301, 302, 303, 307 or 308`,
    );
  }
  if (location.length === 0) throw new TypeError("corral: redirect location is empty");
  for (let index = 0; index < location.length; index++) {
    const code = location.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) {
      throw new TypeError(
        `corral: redirect location contains ${controlName(code)} (U+${hex(code)}) at index ` +
          `${index}; a header value cannot carry it (RFC 9110 §5.5)`,
      );
    }
    if (code === 0x20) {
      throw new TypeError(
        `corral: redirect location contains a space at index ${index}; percent-encode it as %20`,
      );
    }
    if (code > 0x7e) {
      const character = String.fromCodePoint(location.codePointAt(index) ?? code);
      throw new TypeError(
        `corral: redirect location contains the non-ASCII character "${character}" at index ` +
          `${index}; encode the URL with encodeURI() (RFC 3986 §2.1)`,
      );
    }
    const character = location[index]!;
    if (!uriCharacters.test(character)) {
      throw new TypeError(
        `corral: redirect location contains "${character}" at index ${index}, which is not ` +
          `allowed in a URI (RFC 3986 §2); percent-encode it as %${hex(code).slice(2)}`,
      );
    }
    if (code === 0x25 && !(isHexDigit(location, index + 1) && isHexDigit(location, index + 2))) {
      throw new TypeError(
        `corral: redirect location has "%" not followed by two hex digits at index ${index}; ` +
          "encode a literal percent sign as %25 (RFC 3986 §2.1)",
      );
    }
  }
}

function controlName(code: number): string {
  if (code === 0x0d) return "CR";
  if (code === 0x0a) return "LF";
  if (code === 0x00) return "NUL";
  return "a control character";
}

function hex(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, "0");
}

function isHexDigit(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x46) ||
    (code >= 0x61 && code <= 0x66)
  );
}
