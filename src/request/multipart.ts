import { characterTable, isTokenCode, trimWhitespace } from "../field-syntax.ts";

/**
 * One field or file of a `multipart/form-data` body (RFC 7578). Fields and files share this one
 * flat shape; a file is a part with a `filename`.
 *
 * @example
 * for (const part of parseMultipart(body, contentType, limits)) {
 *   if (part.filename !== undefined) console.log(part.name, part.filename, part.bytes.length);
 * }
 */
export interface MultipartPart {
  /** The `name` parameter of `Content-Disposition`, UTF-8 decoded, otherwise as sent. */
  readonly name: string;
  /** The `filename` parameter, UTF-8 decoded; `""` when a file input sent no file. */
  readonly filename: string | undefined;
  /** The part's `Content-Type` field value as sent (whitespace trimmed), if it had one. */
  readonly contentType: string | undefined;
  /** The part's content: a view of the request body, borrowed, valid while the body is. */
  readonly bytes: Uint8Array;
}

/**
 * Bounds on the work one body may ask for; over either one the whole body is rejected.
 *
 * @example
 * const limits: MultipartLimits = { maxParts: 100, maxPartHeaderBytes: 4096 };
 */
export interface MultipartLimits {
  /** Parts in one body, fields and files together. */
  readonly maxParts: number;
  /** Bytes of one part's header lines with their CRLFs; the empty line ending them not counted. */
  readonly maxPartHeaderBytes: number;
}

/**
 * Why a multipart body was rejected.
 *
 * @example
 * const reason: MultipartErrorReason = "missingClosingDelimiter";
 */
export type MultipartErrorReason =
  | "unsupportedMediaType"
  | "invalidContentType"
  | "missingBoundary"
  | "invalidBoundary"
  | "missingOpeningDelimiter"
  | "malformedDelimiter"
  | "missingClosingDelimiter"
  | "tooManyParts"
  | "headerSectionTooLarge"
  | "unterminatedHeaderSection"
  | "malformedHeader"
  | "duplicateHeader"
  | "missingContentDisposition"
  | "invalidContentDisposition"
  | "missingName"
  | "invalidUtf8";

/**
 * Thrown by {@link parseMultipart} when any part of the body is invalid. The App answers it with
 * 400; no part of a rejected body is ever handed out.
 *
 * @example
 * try {
 *   parseMultipart(body, contentType, limits);
 * } catch (error) {
 *   if (error instanceof MultipartError) console.log(error.reason);
 * }
 */
export class MultipartError extends Error {
  override readonly name = "MultipartError";
  /** The App answers it with this status (see `StatusError`). */
  readonly httpStatus = 400;
  /** Why the body was rejected. */
  readonly reason: MultipartErrorReason;

  /**
   * @example
   * throw new MultipartError("tooManyParts", "more than 100 parts");
   */
  constructor(reason: MultipartErrorReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

const carriageReturn = 0x0d;
const lineFeed = 0x0a;
const space = 0x20;
const tab = 0x09;
const dash = 0x2d;
const colon = 0x3a;
const semicolon = 0x3b;
const equalsSign = 0x3d;
const quote = 0x22;
const backslash = 0x5c;
const maxBoundaryLength = 70;
const headerSectionEnd = Buffer.from("\r\n\r\n");
const lineEnd = Buffer.from("\r\n");
const contentDispositionName = Buffer.from("content-disposition");
const contentTypeName = Buffer.from("content-type");
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// RFC 2046 §5.1.1 bchars.
const boundaryCharacters = characterTable("'()+_,-./:=? ");
const isToken = isTokenCode;
const isControl = (code: number) => (code < 0x20 && code !== tab) || code === 0x7f;
const isPadding = (code: number | undefined) => code === space || code === tab;

function skipPadding(text: string, index: number): number {
  while (isPadding(text.charCodeAt(index))) index++;
  return index;
}

/**
 * RFC 9110 §5.6.6 parameters (`; name=value`, value a token or a quoted-string), names lowered.
 * Returns undefined on a syntax error or a repeated name (ambiguous, so rejected).
 */
function parseParameters(text: string, start: number): Map<string, string> | undefined {
  const parameters = new Map<string, string>();
  let index = start;
  for (;;) {
    index = skipPadding(text, index);
    if (index >= text.length) return parameters;
    if (text.charCodeAt(index) !== semicolon) return undefined;
    index = skipPadding(text, index + 1);
    if (index >= text.length) return parameters;
    if (text.charCodeAt(index) === semicolon) continue;
    const nameStart = index;
    while (isToken(text.charCodeAt(index))) index++;
    if (index === nameStart || text.charCodeAt(index) !== equalsSign) return undefined;
    const name = text.slice(nameStart, index).toLowerCase();
    let value = "";
    index++;
    if (text.charCodeAt(index) === quote) {
      // RFC 9110 §5.6.4 quoted-string. Only `\"` and `\\` are unescaped: browsers send a file
      // name's backslashes bare (WHATWG HTML, multipart/form-data encoding), so `C:\a\b.txt`
      // keeps them. `;` inside quotes is text, not a separator.
      let chunkStart = ++index;
      for (;;) {
        const code = text.charCodeAt(index);
        if (Number.isNaN(code) || isControl(code)) return undefined;
        if (code === quote) break;
        const next = text.charCodeAt(index + 1);
        if (code === backslash && (next === quote || next === backslash)) {
          value += text.slice(chunkStart, index);
          chunkStart = index + 1;
          index += 2;
        } else {
          index++;
        }
      }
      value += text.slice(chunkStart, index++);
    } else {
      const valueStart = index;
      while (isToken(text.charCodeAt(index))) index++;
      if (index === valueStart) return undefined;
      value = text.slice(valueStart, index);
    }
    if (parameters.has(name)) return undefined;
    parameters.set(name, value);
  }
}

/** The boundary of a `multipart/form-data` Content-Type value (RFC 7578 §4.1, RFC 2046 §5.1.1). */
export function boundaryOf(contentType: string): string {
  let semicolonIndex = contentType.indexOf(";");
  if (semicolonIndex < 0) semicolonIndex = contentType.length;
  // RFC 2045 §5.1: type and subtype are case-insensitive.
  const mediaType = trimWhitespace(contentType.slice(0, semicolonIndex));
  if (mediaType.toLowerCase() !== "multipart/form-data") {
    throw new MultipartError("unsupportedMediaType", `not multipart/form-data: ${mediaType}`);
  }
  const parameters = parseParameters(contentType, semicolonIndex);
  if (parameters === undefined) {
    throw new MultipartError("invalidContentType", "malformed Content-Type parameters");
  }
  const boundary = parameters.get("boundary");
  if (boundary === undefined) throw new MultipartError("missingBoundary", "no boundary parameter");
  // RFC 2046 §5.1.1: 1 to 70 bchars, the last one not a space.
  let valid = boundary.length >= 1 && boundary.length <= maxBoundaryLength;
  for (let index = 0; valid && index < boundary.length; index++) {
    valid = boundaryCharacters[boundary.charCodeAt(index)] === 1;
  }
  if (!valid || boundary.endsWith(" ")) {
    throw new MultipartError("invalidBoundary", `invalid boundary: ${JSON.stringify(boundary)}`);
  }
  return boundary;
}

/** Throws a TypeError unless both limits are non-negative integers. */
export function checkMultipartLimits(limits: MultipartLimits): void {
  for (const key of ["maxParts", "maxPartHeaderBytes"] as const) {
    if (!Number.isSafeInteger(limits[key]) || limits[key] < 0) {
      throw new TypeError(`corral: multipart limit ${key} must be a non-negative integer`);
    }
  }
}

function matchesAt(source: Uint8Array, pattern: Uint8Array, patternStart: number, at: number) {
  if (at + pattern.length - patternStart > source.length) return false;
  for (let index = patternStart; index < pattern.length; index++) {
    if (source[at + index - patternStart] !== pattern[index]) return false;
  }
  return true;
}

/**
 * Reads what follows a dash-boundary at `at`: `--` makes it the close delimiter (-1 is returned);
 * otherwise transport padding and CRLF end the delimiter line, and the next part starts after
 * them (RFC 2046 §5.1.1). Only padding, then CRLF or the end, may follow the close delimiter.
 */
function partStartAfter(source: Uint8Array, at: number): number {
  const closing = source[at] === dash && source[at + 1] === dash;
  let index = closing ? at + 2 : at;
  while (isPadding(source[index])) index++;
  if (index >= source.length) {
    if (closing) return -1;
    throw new MultipartError("missingClosingDelimiter", "body ends after a delimiter");
  }
  if (source[index] === carriageReturn && source[index + 1] === lineFeed) {
    return closing ? -1 : index + 2;
  }
  // RFC 2046 §5.1.1: the boundary never starts a line inside a part, so "--boundaryX" is an error.
  throw new MultipartError("malformedDelimiter", `unexpected bytes after a delimiter at ${index}`);
}

function equalsIgnoringCase(source: Uint8Array, start: number, end: number, lower: Uint8Array) {
  if (end - start !== lower.length) return false;
  for (let index = 0; index < lower.length; index++) {
    const byte = source[start + index]!;
    const folded = byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
    if (folded !== lower[index]) return false;
  }
  return true;
}

function decodeValue(source: Buffer, start: number, end: number): string {
  while (start < end && isPadding(source[start])) start++;
  while (end > start && isPadding(source[end - 1])) end--;
  try {
    return utf8.decode(source.subarray(start, end));
  } catch {
    throw new MultipartError("invalidUtf8", `part header value at ${start} is not UTF-8`);
  }
}

/** Parses the part between `start` (after its delimiter line) and `end` (its closing CRLF). */
function parsePart(
  body: Uint8Array,
  source: Buffer,
  start: number,
  end: number,
  limits: MultipartLimits,
  dashBoundary: Buffer,
): MultipartPart {
  // body-part := MIME-part-headers [CRLF *OCTET] (RFC 2046 §5.1.1). Searching from the CRLF that
  // ended the delimiter line finds an empty header section; letting the search reach the CRLF of
  // the next delimiter accepts a part with headers and no body.
  const searchEnd = Math.min(end + 2, start + limits.maxPartHeaderBytes + 2);
  const blankLine = source.subarray(0, searchEnd).indexOf(headerSectionEnd, start - 2);
  if (blankLine < 0) {
    if (searchEnd < end + 2) {
      throw new MultipartError("headerSectionTooLarge", `part headers at ${start} over the limit`);
    }
    throw new MultipartError("unterminatedHeaderSection", `part headers at ${start} do not end`);
  }
  const bytes = body.subarray(Math.min(blankLine + 4, end), end);
  return { ...parsePartHeaders(source, start, blankLine, dashBoundary), bytes };
}

/** What a part's header section says: everything of `MultipartPart` but its content. */
export type PartHeaders = Omit<MultipartPart, "bytes">;

/**
 * Parses and validates the header lines of a part, `source[start, blankLine)` (each line ending
 * in CRLF, `blankLine` where the empty line starts; `start` may be `blankLine + 2` for an empty
 * section). Throws `MultipartError` like `parseMultipart`.
 *
 * @example
 * const headers = parsePartHeaders(source, 2, source.length - 4, Buffer.from("--xyz"));
 */
export function parsePartHeaders(
  source: Buffer,
  start: number,
  blankLine: number,
  dashBoundary: Buffer,
): PartHeaders {
  let disposition: string | undefined;
  let contentType: string | undefined;
  for (let lineStart = start; lineStart < blankLine; ) {
    const lineStop = source.indexOf(lineEnd, lineStart);
    let colonIndex = -1;
    for (let index = lineStart; index < lineStop; index++) {
      const byte = source[index]!;
      // RFC 9110 §5.5: CR, LF and NUL never appear in a field line; CRLF alone ends lines.
      if (byte === carriageReturn || byte === lineFeed || byte === 0) {
        throw new MultipartError(
          "malformedHeader",
          `bare CR, LF or NUL in part header at ${index}`,
        );
      }
      if (byte === colon && colonIndex < 0) colonIndex = index;
    }
    // RFC 5322 §3.6.8 field-name: 1*ftext (printable ASCII but ":"); this also rejects folded
    // lines (RFC 9112 §5.2) and a line starting with the boundary (RFC 2046 §5.1.1).
    let valid = colonIndex > lineStart && !matchesAt(source, dashBoundary, 0, lineStart);
    for (let index = lineStart; valid && index < colonIndex; index++) {
      valid = source[index]! > space && source[index]! < 0x7f;
    }
    if (!valid) throw new MultipartError("malformedHeader", `invalid part header at ${lineStart}`);
    if (equalsIgnoringCase(source, lineStart, colonIndex, contentDispositionName)) {
      if (disposition !== undefined) {
        throw new MultipartError("duplicateHeader", `second Content-Disposition at ${lineStart}`);
      }
      disposition = decodeValue(source, colonIndex + 1, lineStop);
    } else if (equalsIgnoringCase(source, lineStart, colonIndex, contentTypeName)) {
      if (contentType !== undefined) {
        throw new MultipartError("duplicateHeader", `second Content-Type at ${lineStart}`);
      }
      contentType = decodeValue(source, colonIndex + 1, lineStop);
    }
    lineStart = lineStop + 2;
  }
  if (disposition === undefined) {
    throw new MultipartError("missingContentDisposition", `part at ${start} has none`);
  }
  // RFC 7578 §4.2: disposition type "form-data" (case-insensitive, RFC 2183 §2) with a name.
  // `filename*` (RFC 5987) MUST NOT be sent (RFC 7578 §4.2), so it is ignored like other names.
  let typeEnd = 0;
  while (isToken(disposition.charCodeAt(typeEnd))) typeEnd++;
  const parameters = parseParameters(disposition, typeEnd);
  if (disposition.slice(0, typeEnd).toLowerCase() !== "form-data" || parameters === undefined) {
    throw new MultipartError("invalidContentDisposition", `part at ${start}: ${disposition}`);
  }
  const name = parameters.get("name");
  if (name === undefined) throw new MultipartError("missingName", `part at ${start} has no name`);
  return { name, filename: parameters.get("filename"), contentType };
}

/**
 * Parses and validates a whole `multipart/form-data` body (RFC 7578, RFC 2046 §5.1) and returns
 * its parts in order. Either every part is valid and the array is returned, or a
 * {@link MultipartError} is thrown: no partial result. Part bytes are views of `body`, not
 * copies; nothing is written anywhere. The preamble and epilogue are ignored; a body holding
 * only the close delimiter (an empty form, as browsers send it) gives `[]`.
 *
 * @throws {MultipartError} for any malformed body, or a body over `limits`.
 * @throws {TypeError} when a limit is not a non-negative integer.
 *
 * @example
 * const parts = parseMultipart(body, "multipart/form-data; boundary=xyz", {
 *   maxParts: 100,
 *   maxPartHeaderBytes: 4096,
 * });
 * for (const part of parts) console.log(part.name, part.filename, part.bytes.length);
 */
export function parseMultipart(
  body: Uint8Array,
  contentType: string,
  limits: MultipartLimits,
): MultipartPart[] {
  checkMultipartLimits(limits);
  const boundary = boundaryOf(contentType);
  const source = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // delimiter := CRLF dash-boundary (RFC 2046 §5.1.1); the first one may open the body bare.
  const delimiter = Buffer.from(`\r\n--${boundary}`, "latin1");
  const dashBoundary = delimiter.subarray(2);
  let opening = 0;
  if (!matchesAt(source, delimiter, 2, 0)) {
    const found = source.indexOf(delimiter);
    if (found < 0) throw new MultipartError("missingOpeningDelimiter", "no delimiter in the body");
    opening = found + 2;
  }
  const parts: MultipartPart[] = [];
  let partStart = partStartAfter(source, opening + dashBoundary.length);
  while (partStart >= 0) {
    if (parts.length >= limits.maxParts) {
      throw new MultipartError("tooManyParts", `more than ${limits.maxParts} parts`);
    }
    const partEnd = source.indexOf(delimiter, partStart);
    if (partEnd < 0) {
      throw new MultipartError("missingClosingDelimiter", "body ends inside a part");
    }
    parts.push(parsePart(body, source, partStart, partEnd, limits, dashBoundary));
    partStart = partStartAfter(source, partEnd + delimiter.length);
  }
  return parts;
}
