import { errorCode } from "../errors.ts";
import {
  hexBytes,
  hostBytes,
  pathBytes,
  queryBytes,
  regNameBytes,
  tokenBytes,
} from "./character-classes.ts";
import type { ParsedHead } from "./parsed-head.ts";

const SP = 0x20;
const CR = 0x0d;
const LF = 0x0a;
const PERCENT = 0x25;
const COLON = 0x3a;
const SLASH = 0x2f;
const QUESTION = 0x3f;

/**
 * Parses the request line between `lineStart` and `lineEnd` (offsets from `head.base`, CRLF
 * excluded) into `head`: method, target (origin, absolute, authority or asterisk form, RFC 9112
 * §3.2) and version. Returns 0, or an engine error code. Linear, throws nothing.
 */
export function parseRequestLine(head: ParsedHead, lineStart: number, lineEnd: number): number {
  const buffer = head.buffer;
  const base = head.base;
  let index = lineStart;
  while (index < lineEnd && tokenBytes[buffer[base + index]!] === 1) index++;
  // RFC 9112 §3: method SP request-target SP HTTP-version, single spaces.
  if (index === lineStart || index >= lineEnd || buffer[base + index] !== SP) {
    return errorCode.malformedRequest;
  }
  const targetStart = index + 1;
  let targetEnd = targetStart;
  while (targetEnd < lineEnd && buffer[base + targetEnd] !== SP) targetEnd++;
  if (targetEnd === targetStart || targetEnd >= lineEnd) return errorCode.malformedRequest;
  return finishRequestLine(head, lineStart, index, targetEnd, lineEnd);
}

/**
 * The end of the request line at `head.lineStart` (the offset of its LF from `head.base`) when
 * the buffer holds it whole up to `end` (absolute) and its method, spaces and version are in
 * place, or -1: then the head parser searches the LF and `parseRequestLine` gives the errors.
 * `head.methodEnd` and `head.targetEnd` are left where the scan found them, for
 * `finishRequestLine`. An origin-form target (the usual `/path?query`) is checked by this same
 * scan, its path and query bytes each looked at once (`head.originTargetChecked`; a byte either
 * does not allow is -1); any other form is checked by `finishRequestLine`, and a CR or LF in it
 * is -1, so the LF found is the line's first.
 */
export function wholeRequestLineFeed(head: ParsedHead, end: number): number {
  head.originTargetChecked = false;
  const buffer = head.buffer;
  const base = head.base;
  const lineStart = base + head.lineStart;
  let index = lineStart;
  while (index < end && tokenBytes[buffer[index]!] === 1) index++;
  if (index === lineStart || index >= end || buffer[index] !== SP) return -1;
  const methodEnd = index;
  index++;
  const targetStart = index;
  let pathEnd = -1;
  if (buffer[index] === SLASH) {
    pathEnd = scanComponent(head, index - base, end - base, pathBytes) + base;
    index = pathEnd;
    if (index < end && buffer[index] === QUESTION) {
      index = scanComponent(head, index + 1 - base, end - base, queryBytes) + base;
    }
  } else {
    while (index < end) {
      const byte = buffer[index]!;
      if (byte === SP || byte === CR || byte === LF) break;
      index++;
    }
  }
  // The version: "HTTP/" and 3 more bytes, then CRLF.
  const lineFeed = index + 10;
  if (index === targetStart || lineFeed >= end || buffer[index] !== SP) return -1;
  if (buffer[lineFeed - 1] !== CR || buffer[lineFeed] !== LF) return -1;
  head.methodEnd = methodEnd - base;
  head.targetEnd = index - base;
  if (pathEnd >= 0) {
    head.pathStart = targetStart - base;
    head.pathEnd = pathEnd - base;
    head.originTargetChecked = true;
  }
  return lineFeed - base;
}

/**
 * The request line once its method ends at `methodEnd` (before a SP) and its target at
 * `targetEnd` (before a SP): the version, then the target, unless `targetChecked` (an origin
 * form `wholeRequestLineFeed` checked, its path offsets set). Returns 0 or an error code.
 */
export function finishRequestLine(
  head: ParsedHead,
  lineStart: number,
  methodEnd: number,
  targetEnd: number,
  lineEnd: number,
  targetChecked = false,
): number {
  head.methodStart = lineStart;
  head.methodEnd = methodEnd;
  head.targetStart = methodEnd + 1;
  head.targetEnd = targetEnd;
  const versionResult = parseVersion(head, targetEnd + 1, lineEnd);
  if (versionResult !== 0) return versionResult;
  if (targetChecked) return 0;
  return parseTarget(head, lineStart, methodEnd + 1, targetEnd);
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
  // CONNECT's target is checked here, with the line's other parts, whatever form it has: in
  // finishRequestLine the check made that function too large to be inlined into its caller
  // (+76 instructions a request, bench/instructions.ts), here it costs one comparison.
  return head.methodEnd - head.methodStart === 7 ? connectRequest(head) : 0;
}

/** A request line with a 7-byte method: a CONNECT's target is checked (see `connectTarget`). */
function connectRequest(head: ParsedHead): number {
  if (!methodIs(head, head.methodStart, "CONNECT")) return 0;
  return connectTarget(head, head.targetStart, head.targetEnd);
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
  return parseAbsoluteForm(head, start, end);
}

/**
 * RFC 9112 §3.2.3: a CONNECT target is the authority-form, host ":" port, and nothing else (400
 * otherwise). A valid one asks for a tunnel, which the engine does not make: a 501. Handing it to
 * the application could only go wrong: a 2xx answer to CONNECT turns the connection into a
 * tunnel for the client, which then reads what follows as tunnel bytes (RFC 9110 §9.3.6, RFC
 * 9112 §6.3), while the engine would go on answering requests on it.
 */
function connectTarget(head: ParsedHead, start: number, end: number): number {
  if (scanAuthority(head, start, end) !== end) return errorCode.malformedRequest;
  const buffer = head.buffer;
  let portStart = end;
  while (portStart > start && isDigit(buffer[head.base + portStart - 1]!)) portStart--;
  if (portStart === end || portStart === start || buffer[head.base + portStart - 1] !== COLON) {
    return errorCode.malformedRequest;
  }
  return errorCode.connectNotImplemented;
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
export function scanAuthority(head: ParsedHead, start: number, end: number): number {
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
    // Host bytes first, one lookup each: every byte of most hosts ("127.0.0.1", "example.com").
    while (index < end) {
      const byte = buffer[base + index]!;
      if (regNameBytes[byte] === 1) {
        index++;
      } else if (byte === PERCENT) {
        if (!percentEscapeAt(head, index, end)) return -1;
        index += 3;
      } else if (byte === SLASH || byte === QUESTION || byte === COLON) {
        break;
      } else {
        return -1;
      }
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
