/**
 * Why a request path is refused. Each one is a 404 for static files: the folder has no such file,
 * and the answer does not tell an attacker which rule stopped them.
 *
 * @example
 * const result = canonicalPath("%2e%2e/etc");
 * if (!result.ok) console.log(result.reason); // "dot-segment"
 */
export type PathRejection =
  | "malformed-escape"
  | "invalid-utf8"
  | "empty-segment"
  | "dot-segment"
  | "encoded-separator"
  | "backslash"
  | "control-character"
  | "double-encoding"
  | "dotfile"
  | "windows-name";

/**
 * How strict `canonicalPath` is beyond the rules that always hold.
 *
 * @example
 * canonicalPath(".well-known/security.txt", { allowDotfiles: true });
 */
export interface CanonicalPathOptions {
  /** Serve names starting with `.` (`.well-known`, for example). Default false. */
  readonly allowDotfiles?: boolean;
  /**
   * Also refuse what Windows treats as another name: `:` (alternate data streams), 8.3 short
   * names (`PROGRA~1`), device names (`CON`, `NUL`, `COM1`), trailing dots and spaces. Default:
   * on when `process.platform` is `win32`.
   */
  readonly windowsNames?: boolean;
}

/**
 * A canonical path: decoded segments, and whether the raw path ended with `/`.
 *
 * @example
 * const result = canonicalPath("docs/caf%C3%A9/");
 * if (result.ok) console.log(result.path.segments); // ["docs", "café"], trailingSlash true
 */
export interface CanonicalSegments {
  readonly segments: readonly string[];
  readonly trailingSlash: boolean;
}

/**
 * `canonicalPath`'s answer.
 *
 * @example
 * const result: CanonicalPathResult = canonicalPath("a%2Fb"); // { ok: false, reason: "encoded-separator" }
 */
export type CanonicalPathResult =
  | { readonly ok: true; readonly path: CanonicalSegments }
  | { readonly ok: false; readonly reason: PathRejection };

const utf8 = new TextDecoder("utf-8", { fatal: true });
const percent = 0x25;
const isWindows = process.platform === "win32";
// Windows device names are reserved in every folder and with any extension (CON.txt is CON).
const windowsDevices = /^(con|prn|aux|nul|com[0-9]|lpt[0-9]|conin\$|conout\$)(\.|$)/i;

/**
 * Percent-decodes one path segment once (RFC 3986 §2.1), strictly: a `%` not followed by two hex
 * digits, or bytes that are not UTF-8, give undefined. A segment without `%` comes back as is.
 *
 * @example
 * decodePathSegment("caf%C3%A9"); // "café"
 * decodePathSegment("%FF"); // undefined
 */
export function decodePathSegment(raw: string): string | undefined {
  if (raw.indexOf("%") === -1) return raw;
  const bytes = new Uint8Array(raw.length);
  let length = 0;
  for (let index = 0; index < raw.length; index++) {
    const code = raw.charCodeAt(index);
    if (code === percent) {
      const high = hexValue(raw.charCodeAt(index + 1));
      const low = hexValue(raw.charCodeAt(index + 2));
      if (high < 0 || low < 0) return undefined;
      bytes[length++] = high * 16 + low;
      index += 2;
    } else if (code > 0x7f) {
      // The engine refuses raw non-ASCII bytes; a caller passing a decoded string is a mistake.
      return undefined;
    } else {
      bytes[length++] = code;
    }
  }
  try {
    return utf8.decode(bytes.subarray(0, length));
  } catch {
    return undefined;
  }
}

/**
 * Turns a raw, still-encoded relative path (`css/site.css`, no leading `/`) into decoded segments,
 * or says why it is refused. Linear, one pass per segment, no regular expression on request
 * bytes except the fixed Windows device check. The rules, each a 404 for static files:
 * - decode exactly once; a malformed escape or bytes that are not UTF-8 are refused;
 * - `.` and `..` (also as `%2e`) are refused, never resolved (RFC 3986 §5.2.4 is for clients);
 * - an empty segment (`a//b`) is refused; only the last may be empty (a directory, `a/`);
 * - a decoded `/` or `\` (`%2F`, `%5C`), a raw `\`, NUL and every control character are refused;
 * - a segment that decodes a second time into a separator, NUL or a dot segment (`%252e%252e`)
 *   is refused, so no later layer that decodes again can be led out;
 * - a segment starting with `.` is refused unless `allowDotfiles`;
 * - with `windowsNames`, also `:`, `~` followed by a digit, device names and trailing `.`/space.
 *
 * @example
 * canonicalPath("css/site.css"); // { ok: true, path: { segments: ["css", "site.css"], trailingSlash: false } }
 * canonicalPath("%252e%252e/x"); // { ok: false, reason: "double-encoding" }
 */
export function canonicalPath(
  raw: string,
  options: CanonicalPathOptions = {},
): CanonicalPathResult {
  const windowsNames = options.windowsNames ?? isWindows;
  const parts = raw.split("/");
  const trailingSlash = parts.length > 1 && parts[parts.length - 1] === "";
  const count = trailingSlash ? parts.length - 1 : parts.length;
  const segments: string[] = [];
  for (let index = 0; index < count; index++) {
    const part = parts[index]!;
    if (part.length === 0) {
      // "" alone is the folder itself; anywhere else it is "//".
      if (count === 1 && !trailingSlash) break;
      return refuse("empty-segment");
    }
    const segment = decodePathSegment(part);
    if (segment === undefined) {
      return refuse(part.indexOf("%") === -1 ? "control-character" : "malformed-escape");
    }
    const problem = segmentProblem(segment, options.allowDotfiles === true, windowsNames, true);
    if (problem !== undefined) return refuse(problem);
    segments.push(segment);
  }
  return { ok: true, path: { segments, trailingSlash } };
}

function segmentProblem(
  segment: string,
  allowDotfiles: boolean,
  windowsNames: boolean,
  secondPass: boolean,
): PathRejection | undefined {
  if (segment === "." || segment === "..") return "dot-segment";
  for (let index = 0; index < segment.length; index++) {
    const code = segment.charCodeAt(index);
    if (code === 0x2f) return "encoded-separator";
    if (code === 0x5c) return "backslash";
    if (code < 0x20 || code === 0x7f) return "control-character";
    if (
      windowsNames &&
      (code === 0x3a || (code === 0x7e && isDigit(segment.charCodeAt(index + 1))))
    ) {
      return "windows-name";
    }
  }
  // A later layer that decodes again (a proxy, a file API) must see a name as harmless as this one.
  if (secondPass && segment.indexOf("%") !== -1) {
    const again = decodePathSegment(segment);
    if (again !== undefined && segmentProblem(again, allowDotfiles, windowsNames, false)) {
      return "double-encoding";
    }
  }
  if (!allowDotfiles && segment.charCodeAt(0) === 0x2e) return "dotfile";
  if (windowsNames) {
    const last = segment.charCodeAt(segment.length - 1);
    if (last === 0x2e || last === 0x20 || windowsDevices.test(segment)) return "windows-name";
  }
  return undefined;
}

function refuse(reason: PathRejection): CanonicalPathResult {
  return { ok: false, reason };
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}
