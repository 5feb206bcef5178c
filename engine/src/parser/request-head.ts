import { errorCode } from "../errors.ts";
import {
  fieldValueBytes,
  hexBytes,
  hostBytes,
  pathBytes,
  queryBytes,
  tokenBytes,
} from "./character-classes.ts";
import type { ParsedHead } from "./parsed-head.ts";

/** The head is not complete yet: call again with more bytes. */
export const headIncomplete = 0;
/** The head is complete: `head.headEnd` is its length. */
export const headComplete = 1;

/** The limits the head parser enforces. */
export interface HeadLimits {
  readonly maxRequestLineBytes: number;
  readonly maxHeaderBytes: number;
  readonly maxHeaderCount: number;
  readonly maxBodyBytes: number;
}

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const HTAB = 0x09;
const PERCENT = 0x25;
const COLON = 0x3a;
const SLASH = 0x2f;
const QUESTION = 0x3f;
const COMMA = 0x2c;

/**
 * Parses as much of a request head as `head.buffer` holds up to `end` (an absolute index),
 * resuming where the previous call stopped. Strict RFC 9112: returns `headIncomplete`,
 * `headComplete`, or an engine error code. Throws nothing.
 */
export function parseRequestHead(head: ParsedHead, end: number, limits: HeadLimits): number {
  const buffer = head.buffer;
  const base = head.base;
  const available = end - base;
  let position = head.scanned;
  while (position < available) {
    let lineFeed = -1;
    for (let index = base + position; index < end; index++) {
      if (buffer[index] === LF) {
        lineFeed = index - base;
        break;
      }
    }
    if (lineFeed < 0) {
      head.scanned = available;
      return limitErrorBefore(head, available, limits);
    }
    // A limit the bytes before this LF already passed answers first, as it would have had the
    // bytes come one at a time: the answer must not depend on how the head was split.
    const overLimit = limitErrorBefore(head, lineFeed, limits);
    if (overLimit !== headIncomplete) return overLimit;
    // RFC 9112 §2.2: a bare LF is not accepted as a line terminator here (strict).
    if (lineFeed === head.lineStart || buffer[base + lineFeed - 1] !== CR) {
      return errorCode.malformedRequest;
    }
    const lineStart = head.lineStart;
    const lineEnd = lineFeed - 1;
    position = lineFeed + 1;
    head.lineStart = position;
    head.scanned = position;
    if (!head.requestLineDone) {
      // RFC 9112 §2.2: empty lines before the request line are ignored.
      if (lineEnd === lineStart) continue;
      const result = parseRequestLine(head, lineStart, lineEnd);
      if (result !== 0) return result;
      head.requestLineDone = true;
      continue;
    }
    if (lineEnd === lineStart) {
      head.headEnd = position;
      return finishHead(head, limits);
    }
    const result = parseFieldLine(head, lineStart, lineEnd, limits);
    if (result !== 0) return result;
  }
  return limitErrorBefore(head, available, limits);
}

/**
 * The limit error once `seen` bytes of the head have come, none of them ending the current line;
 * else `headIncomplete`. A request line is over its limit once `maxRequestLineBytes + 2` of its
 * bytes came without a LF (RFC 9112 §3: 414); the head is over once `maxHeaderBytes` came without
 * its end (431). When both apply, the limit passed first answers, 414 on a tie.
 */
function limitErrorBefore(head: ParsedHead, seen: number, limits: HeadLimits): number {
  const lineTooLongAt = head.requestLineDone
    ? Number.POSITIVE_INFINITY
    : head.lineStart + limits.maxRequestLineBytes + 2;
  if (seen >= lineTooLongAt && lineTooLongAt <= limits.maxHeaderBytes) {
    return errorCode.requestLineTooLong;
  }
  if (seen >= limits.maxHeaderBytes) return errorCode.headerSectionTooLarge;
  return headIncomplete;
}

function parseRequestLine(head: ParsedHead, lineStart: number, lineEnd: number): number {
  const buffer = head.buffer;
  const base = head.base;
  let index = lineStart;
  while (index < lineEnd && tokenBytes[buffer[base + index]!] === 1) index++;
  // RFC 9112 §3: method SP request-target SP HTTP-version, single spaces.
  if (index === lineStart || index >= lineEnd || buffer[base + index] !== SP) {
    return errorCode.malformedRequest;
  }
  head.methodStart = lineStart;
  head.methodEnd = index;
  const targetStart = index + 1;
  let targetEnd = targetStart;
  while (targetEnd < lineEnd && buffer[base + targetEnd] !== SP) targetEnd++;
  if (targetEnd === targetStart || targetEnd >= lineEnd) return errorCode.malformedRequest;
  head.targetStart = targetStart;
  head.targetEnd = targetEnd;
  const versionResult = parseVersion(head, targetEnd + 1, lineEnd);
  if (versionResult !== 0) return versionResult;
  return parseTarget(head, lineStart, targetStart, targetEnd);
}

function parseVersion(head: ParsedHead, start: number, lineEnd: number): number {
  const buffer = head.buffer;
  const at = head.base + start;
  // RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive.
  if (
    lineEnd - start !== 8 ||
    buffer[at] !== 0x48 ||
    buffer[at + 1] !== 0x54 ||
    buffer[at + 2] !== 0x54 ||
    buffer[at + 3] !== 0x50 ||
    buffer[at + 4] !== SLASH ||
    buffer[at + 6] !== 0x2e
  ) {
    return errorCode.malformedRequest;
  }
  const major = buffer[at + 5]! - 0x30;
  const minor = buffer[at + 7]! - 0x30;
  if (major < 0 || major > 9 || minor < 0 || minor > 9) return errorCode.malformedRequest;
  if (major !== 1) return errorCode.unsupportedVersion;
  // RFC 9110 §6.2: a higher minor version of HTTP/1 is answered as the highest we support.
  head.versionMinor = minor === 0 ? 0 : 1;
  return 0;
}

function parseTarget(head: ParsedHead, methodStart: number, start: number, end: number): number {
  const buffer = head.buffer;
  const base = head.base;
  const first = buffer[base + start];
  if (first === SLASH) {
    head.pathStart = start;
    return scanPathAndQuery(head, start, end);
  }
  // RFC 9112 §3.2.4: asterisk-form only for OPTIONS.
  if (first === 0x2a && end - start === 1) {
    if (!methodIs(head, methodStart, "OPTIONS")) return errorCode.malformedRequest;
    head.pathStart = start;
    head.pathEnd = end;
    return 0;
  }
  // RFC 9112 §3.2.3: authority-form only for CONNECT.
  if (methodIs(head, methodStart, "CONNECT")) {
    const result = scanAuthority(head, start, end);
    if (result !== end) return errorCode.malformedRequest;
    head.pathStart = end;
    head.pathEnd = end;
    return 0;
  }
  return parseAbsoluteForm(head, start, end);
}

function parseAbsoluteForm(head: ParsedHead, start: number, end: number): number {
  const buffer = head.buffer;
  const base = head.base;
  // RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then "://" authority.
  let index = start;
  const firstByte = buffer[base + index]! | 0x20;
  if (firstByte < 0x61 || firstByte > 0x7a) return errorCode.malformedRequest;
  while (index < end) {
    const byte = buffer[base + index]!;
    const lower = byte | 0x20;
    const isSchemeByte =
      (lower >= 0x61 && lower <= 0x7a) ||
      (byte >= 0x30 && byte <= 0x39) ||
      byte === 0x2b ||
      byte === 0x2d ||
      byte === 0x2e;
    if (!isSchemeByte) break;
    index++;
  }
  if (
    end - index < 3 ||
    buffer[base + index] !== COLON ||
    buffer[base + index + 1] !== SLASH ||
    buffer[base + index + 2] !== SLASH
  ) {
    return errorCode.malformedRequest;
  }
  const authorityEnd = scanAuthority(head, index + 3, end);
  if (authorityEnd < 0) return errorCode.malformedRequest;
  head.pathStart = authorityEnd;
  if (authorityEnd === end) {
    head.pathEnd = end;
    return 0;
  }
  const next = buffer[base + authorityEnd];
  if (next !== SLASH && next !== QUESTION) return errorCode.malformedRequest;
  return scanPathAndQuery(head, authorityEnd, end);
}

/**
 * Scans an authority (host and optional port) and returns where it ends, or -1 when it is not
 * valid. RFC 9112 §3.2.2 and RFC 9110 §4.2.4: userinfo ("@") in a request target is rejected.
 * RFC 9110 §4.2.1: an empty host is invalid. RFC 3986 §3.2.3: a port is digits only.
 */
function scanAuthority(head: ParsedHead, start: number, end: number): number {
  const buffer = head.buffer;
  const base = head.base;
  let index = start;
  if (buffer[base + index] === 0x5b) {
    // IP-literal: "[" IPv6address / IPvFuture "]"; bytes checked loosely, brackets must close.
    index++;
    while (index < end && buffer[base + index] !== 0x5d) {
      const byte = buffer[base + index]!;
      if (hostBytes[byte] !== 1) return -1;
      index++;
    }
    if (index >= end || index === start + 1) return -1;
    index++;
  } else {
    while (index < end) {
      const byte = buffer[base + index]!;
      if (byte === SLASH || byte === QUESTION || byte === COLON) break;
      if (byte === PERCENT) {
        if (!percentEscapeAt(head, index, end)) return -1;
        index += 3;
        continue;
      }
      if (hostBytes[byte] !== 1) return -1;
      index++;
    }
    if (index === start) return -1;
  }
  if (index < end && buffer[base + index] === COLON) {
    index++;
    while (index < end && isDigit(buffer[base + index]!)) index++;
  }
  return index;
}

function scanPathAndQuery(head: ParsedHead, start: number, end: number): number {
  const pathEnd = scanComponent(head, start, end, pathBytes);
  head.pathEnd = pathEnd;
  if (pathEnd === end) return 0;
  if (head.buffer[head.base + pathEnd] !== QUESTION) return errorCode.malformedRequest;
  return scanComponent(head, pathEnd + 1, end, queryBytes) === end ? 0 : errorCode.malformedRequest;
}

/** Where the run of `allowed` bytes and `%` escapes from `start` stops (`end` when it does not). */
function scanComponent(head: ParsedHead, start: number, end: number, allowed: Uint8Array): number {
  const buffer = head.buffer;
  const base = head.base;
  let index = start;
  while (index < end) {
    const byte = buffer[base + index]!;
    if (allowed[byte] === 1) {
      index++;
    } else if (byte === PERCENT && percentEscapeAt(head, index, end)) {
      // RFC 3986 §2.1: "%" must introduce two hex digits.
      index += 3;
    } else {
      break;
    }
  }
  return index;
}

function percentEscapeAt(head: ParsedHead, index: number, end: number): boolean {
  const at = head.base + index;
  return (
    index + 2 < end && hexBytes[head.buffer[at + 1]!] === 1 && hexBytes[head.buffer[at + 2]!] === 1
  );
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

function methodIs(head: ParsedHead, start: number, method: string): boolean {
  if (head.methodEnd - start !== method.length) return false;
  for (let index = 0; index < method.length; index++) {
    if (head.buffer[head.base + start + index] !== method.charCodeAt(index)) return false;
  }
  return true;
}

function parseFieldLine(
  head: ParsedHead,
  lineStart: number,
  lineEnd: number,
  limits: HeadLimits,
): number {
  const buffer = head.buffer;
  const base = head.base;
  const first = buffer[base + lineStart];
  // RFC 9112 §5.2: obs-fold is rejected.
  if (first === SP || first === HTAB) return errorCode.malformedRequest;
  let index = lineStart;
  while (index < lineEnd && tokenBytes[buffer[base + index]!] === 1) index++;
  // RFC 9112 §5.1: no whitespace between the field name and the colon.
  if (index === lineStart || index >= lineEnd || buffer[base + index] !== COLON) {
    return errorCode.malformedRequest;
  }
  const nameEnd = index;
  index++;
  while (index < lineEnd && (buffer[base + index] === SP || buffer[base + index] === HTAB)) index++;
  const valueStart = index;
  for (; index < lineEnd; index++) {
    // RFC 9110 §5.5: field values carry no CR, LF, NUL or other controls but HTAB.
    if (fieldValueBytes[buffer[base + index]!] !== 1) return errorCode.malformedRequest;
  }
  let valueEnd = lineEnd;
  while (
    valueEnd > valueStart &&
    (buffer[base + valueEnd - 1] === SP || buffer[base + valueEnd - 1] === HTAB)
  ) {
    valueEnd--;
  }
  if (head.headerCount >= limits.maxHeaderCount) return errorCode.tooManyHeaders;
  const slot = head.headerCount * 4;
  head.headerOffsets[slot] = lineStart;
  head.headerOffsets[slot + 1] = nameEnd;
  head.headerOffsets[slot + 2] = valueStart;
  head.headerOffsets[slot + 3] = valueEnd;
  head.headerCount++;
  return interpretField(head, lineStart, nameEnd, valueStart, valueEnd, limits);
}

function nameIs(head: ParsedHead, start: number, end: number, lowerName: string): boolean {
  if (end - start !== lowerName.length) return false;
  const buffer = head.buffer;
  const at = head.base + start;
  for (let index = 0; index < lowerName.length; index++) {
    if ((buffer[at + index]! | 0x20) !== lowerName.charCodeAt(index)) return false;
  }
  return true;
}

function interpretField(
  head: ParsedHead,
  nameStart: number,
  nameEnd: number,
  valueStart: number,
  valueEnd: number,
  limits: HeadLimits,
): number {
  const nameLength = nameEnd - nameStart;
  const firstLower = head.buffer[head.base + nameStart]! | 0x20;
  if (nameLength === 4 && firstLower === 0x68 && nameIs(head, nameStart, nameEnd, "host")) {
    head.hostCount++;
    // RFC 9112 §3.2: more than one Host, or an invalid one, is a 400.
    if (head.hostCount > 1) return errorCode.malformedRequest;
    if (valueStart === valueEnd) return 0;
    return scanAuthority(head, valueStart, valueEnd) === valueEnd ? 0 : errorCode.malformedRequest;
  }
  if (
    nameLength === 14 &&
    firstLower === 0x63 &&
    nameIs(head, nameStart, nameEnd, "content-length")
  ) {
    return interpretContentLength(head, valueStart, valueEnd, limits);
  }
  if (
    nameLength === 17 &&
    firstLower === 0x74 &&
    nameIs(head, nameStart, nameEnd, "transfer-encoding")
  ) {
    return interpretTransferEncoding(head, valueStart, valueEnd);
  }
  if (nameLength === 10 && firstLower === 0x63 && nameIs(head, nameStart, nameEnd, "connection")) {
    forEachListElement(head, valueStart, valueEnd, (start, end) => {
      if (nameIs(head, start, end, "close")) head.connectionClose = true;
      else if (nameIs(head, start, end, "keep-alive")) head.connectionKeepAlive = true;
      return 0;
    });
    return 0;
  }
  if (nameLength === 6 && firstLower === 0x65 && nameIs(head, nameStart, nameEnd, "expect")) {
    // RFC 9110 §10.1.1: only 100-continue is known; HTTP/1.0 expectations are ignored.
    if (head.versionMinor === 0) return 0;
    if (!nameIs(head, valueStart, valueEnd, "100-continue")) {
      return errorCode.unsupportedExpectation;
    }
    head.expectContinue = true;
  }
  return 0;
}

function interpretContentLength(
  head: ParsedHead,
  valueStart: number,
  valueEnd: number,
  limits: HeadLimits,
): number {
  // RFC 9110 §8.6: Content-Length = 1*DIGIT; a repeated field must carry the same value.
  if (valueStart === valueEnd || valueEnd - valueStart > 15) return errorCode.malformedRequest;
  let length = 0;
  for (let index = valueStart; index < valueEnd; index++) {
    const digit = head.buffer[head.base + index]! - 0x30;
    if (digit < 0 || digit > 9) return errorCode.malformedRequest;
    length = length * 10 + digit;
  }
  if (head.contentLength >= 0 && head.contentLength !== length) return errorCode.malformedRequest;
  head.contentLength = length;
  if (length > limits.maxBodyBytes) return errorCode.bodyTooLarge;
  return 0;
}

function interpretTransferEncoding(head: ParsedHead, valueStart: number, valueEnd: number): number {
  head.transferEncodingSeen = true;
  return forEachListElement(head, valueStart, valueEnd, (start, end) => {
    // RFC 9112 §6.3: chunked must be the final coding, and appear once.
    if (head.chunked) return errorCode.malformedRequest;
    if (nameIs(head, start, end, "chunked")) {
      head.chunked = true;
      return 0;
    }
    return errorCode.unsupportedTransferCoding;
  });
}

/** Calls `visit` for each non-empty comma-separated element; stops at its first non-zero result. */
function forEachListElement(
  head: ParsedHead,
  valueStart: number,
  valueEnd: number,
  visit: (start: number, end: number) => number,
): number {
  const buffer = head.buffer;
  const base = head.base;
  let start = valueStart;
  while (start <= valueEnd) {
    let end = start;
    while (end < valueEnd && buffer[base + end] !== COMMA) end++;
    let trimmedStart = start;
    let trimmedEnd = end;
    while (trimmedStart < trimmedEnd && isWhitespace(buffer[base + trimmedStart]!)) trimmedStart++;
    while (trimmedEnd > trimmedStart && isWhitespace(buffer[base + trimmedEnd - 1]!)) trimmedEnd--;
    if (trimmedEnd > trimmedStart) {
      const result = visit(trimmedStart, trimmedEnd);
      if (result !== 0) return result;
    }
    start = end + 1;
  }
  return 0;
}

function isWhitespace(byte: number): boolean {
  return byte === SP || byte === HTAB;
}

function finishHead(head: ParsedHead, limits: HeadLimits): number {
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is a 400.
  if (head.versionMinor >= 1 && head.hostCount === 0) return errorCode.malformedRequest;
  if (head.transferEncodingSeen) {
    // RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 means faulty framing; §6.3: with
    // Content-Length it is a smuggling risk; a coding list not ending in chunked is a 400.
    if (head.versionMinor === 0 || head.contentLength >= 0 || !head.chunked) {
      return errorCode.malformedRequest;
    }
  }
  if (head.contentLength > limits.maxBodyBytes) return errorCode.bodyTooLarge;
  return headComplete;
}
