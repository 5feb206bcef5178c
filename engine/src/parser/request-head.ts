import { errorCode } from "../errors.ts";
import { fieldValueBytes, tokenBytes } from "./character-classes.ts";
import { hostNamesTarget } from "./host-target.ts";
import { findLineEnd } from "./line-end.ts";
import type { ParsedHead } from "./parsed-head.ts";
import {
  finishRequestLine,
  parseRequestLine,
  scanAuthority,
  wholeRequestLineFeed,
} from "./request-line.ts";

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
const COLON = 0x3a;
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
    // A field line that came whole is checked in one pass (most lines of most heads); the
    // request line, the head's end, a line cut short and anything malformed go the general way
    // below, which finds the LF first and gives every error.
    if (head.requestLineDone && position === head.lineStart) {
      const result = parseWholeFieldLine(head, end, limits);
      if (result !== notWhole) {
        if (result !== 0) return result;
        position = head.scanned;
        continue;
      }
    }
    // A request line that came whole is found by the scan its method and target need anyway.
    let lineFeed =
      !head.requestLineDone && position === head.lineStart ? wholeRequestLineFeed(head, end) : -1;
    // Over its limit, a whole request line goes the general way too: the limit answers at the
    // line's first LF or bare CR, and that scan does not look for them among the version's bytes.
    const wholeLine = lineFeed >= 0 && limitErrorBefore(head, lineFeed, limits) === headIncomplete;
    if (!wholeLine) {
      // The byte before `position` ended the previous call's bytes: a CR there is looked at again.
      const from = position > head.lineStart ? position - 1 : position;
      lineFeed = findLineEnd(buffer, base + from, end, base);
      if (lineFeed < 0) {
        head.scanned = available;
        return limitErrorBefore(head, available, limits);
      }
      // A bare CR is known to be one at the byte after it, as a LF ends a line.
      const bareCarriageReturn = buffer[base + lineFeed] === CR;
      // A limit the bytes before this LF (or after this CR) already passed answers first, as it
      // would have had the bytes come one at a time: the answer must not depend on the split.
      const overLimit = limitErrorBefore(
        head,
        bareCarriageReturn ? lineFeed + 1 : lineFeed,
        limits,
      );
      if (overLimit !== headIncomplete) return overLimit;
      if (bareCarriageReturn) return errorCode.malformedRequest;
    }
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
      const result = wholeLine
        ? finishRequestLine(
            head,
            lineStart,
            head.methodEnd,
            head.targetEnd,
            lineEnd,
            head.originTargetChecked,
          )
        : parseRequestLine(head, lineStart, lineEnd);
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

/** What `parseWholeFieldLine` returns when the line must go the general way. */
const notWhole = -1;

/**
 * The field lines from `head.lineStart` on that the buffer holds whole and well formed, each in
 * one pass: the name's token bytes, ":", whitespace, then field-value bytes up to CRLF. Returns
 * an error code as `parseFieldLine` would (limits first, then the field) for the first line that
 * has one; else 0 with the whole lines consumed, or `notWhole`, with nothing changed, when the
 * first line stops at anything else (its end not here yet, a bare LF, a control byte, obs-fold,
 * the empty line ending the head). Each byte is looked at once more at most when the general way
 * then takes a line.
 */
function parseWholeFieldLine(head: ParsedHead, end: number, limits: HeadLimits): number {
  const buffer = head.buffer;
  const base = head.base;
  let result = notWhole;
  // Line after line while they come whole: one call for the run of them, not one for each.
  for (;;) {
    const lineStart = head.lineStart;
    let index = base + lineStart;
    while (index < end && tokenBytes[buffer[index]!] === 1) index++;
    if (index === base + lineStart || index >= end || buffer[index] !== COLON) return result;
    const nameEnd = index - base;
    index++;
    while (index < end && (buffer[index] === SP || buffer[index] === HTAB)) index++;
    const valueStart = index - base;
    while (index < end && fieldValueBytes[buffer[index]!] === 1) index++;
    if (index + 1 >= end || buffer[index] !== CR || buffer[index + 1] !== LF) return result;
    const lineFeed = index + 1 - base;
    // limitErrorBefore once the request line is done: only the head's own limit is left.
    if (lineFeed >= limits.maxHeaderBytes) return errorCode.headerSectionTooLarge;
    head.lineStart = lineFeed + 1;
    head.scanned = lineFeed + 1;
    result = addField(head, lineStart, nameEnd, valueStart, lineFeed - 1, limits);
    if (result !== 0) return result;
  }
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
  return addField(head, lineStart, nameEnd, valueStart, lineEnd, limits);
}

/**
 * Records a checked field line (within `maxHeaderCount`) and interprets it; its value runs from
 * `valueStart` to `lineEnd` less trailing whitespace (RFC 9112 §5: OWS is not part of it).
 */
function addField(
  head: ParsedHead,
  nameStart: number,
  nameEnd: number,
  valueStart: number,
  lineEnd: number,
  limits: HeadLimits,
): number {
  const buffer = head.buffer;
  const base = head.base;
  let valueEnd = lineEnd;
  while (
    valueEnd > valueStart &&
    (buffer[base + valueEnd - 1] === SP || buffer[base + valueEnd - 1] === HTAB)
  ) {
    valueEnd--;
  }
  if (head.headerCount >= limits.maxHeaderCount) return errorCode.tooManyHeaders;
  head.setField(head.headerCount, nameStart, nameEnd, valueStart, valueEnd);
  head.headerCount++;
  // Most fields mean nothing to the parser: a length and a first letter tell, without a call.
  const length = nameEnd - nameStart;
  if (length >= interpretedFirstLetters.length) return 0;
  if (interpretedFirstLetters[length] !== (buffer[base + nameStart]! | 0x20)) return 0;
  return interpretField(head, nameStart, nameEnd, valueStart, valueEnd, limits);
}

/** By name length, the lower-case first letter of the field interpretField knows, else 0. */
const interpretedFirstLetters = new Uint8Array(18);
interpretedFirstLetters[4] = 0x68; // host
interpretedFirstLetters[6] = 0x65; // expect
interpretedFirstLetters[10] = 0x63; // connection
interpretedFirstLetters[14] = 0x63; // content-length
interpretedFirstLetters[17] = 0x74; // transfer-encoding

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
  // addField calls only for a name whose length and first letter are those of one of these
  // five (interpretedFirstLetters): the length picks it, nameIs checks the rest.
  const nameLength = nameEnd - nameStart;
  if (nameLength === 4 && nameIs(head, nameStart, nameEnd, "host")) {
    head.hostCount++;
    // RFC 9112 §3.2: more than one Host, or an invalid one, is a 400.
    if (head.hostCount > 1) return errorCode.malformedRequest;
    head.hostValueStart = valueStart;
    head.hostValueEnd = valueEnd;
    if (valueStart === valueEnd) return 0;
    return scanAuthority(head, valueStart, valueEnd) === valueEnd ? 0 : errorCode.malformedRequest;
  }
  if (nameLength === 14 && nameIs(head, nameStart, nameEnd, "content-length")) {
    return interpretContentLength(head, valueStart, valueEnd, limits);
  }
  if (nameLength === 17 && nameIs(head, nameStart, nameEnd, "transfer-encoding")) {
    return interpretTransferEncoding(head, valueStart, valueEnd);
  }
  if (nameLength === 10 && nameIs(head, nameStart, nameEnd, "connection")) {
    forEachListElement(head, valueStart, valueEnd, visitConnectionOption);
    return 0;
  }
  if (nameLength === 6 && nameIs(head, nameStart, nameEnd, "expect")) {
    // RFC 9110 §10.1.1: Expect = #expectation, of which only 100-continue is known; empty
    // elements (and an empty field) mean nothing (§5.6.1). HTTP/1.0 expectations are ignored.
    if (head.versionMinor === 0) return 0;
    return forEachListElement(head, valueStart, valueEnd, visitExpectation);
  }
  return 0;
}

function interpretContentLength(
  head: ParsedHead,
  valueStart: number,
  valueEnd: number,
  limits: HeadLimits,
): number {
  // RFC 9110 §8.6: Content-Length = 1*DIGIT (leading zeros allowed); a repeated field must carry
  // the same value. A length no limit can reach (past 2^53) is over the limit: 413, not 400.
  if (valueStart === valueEnd) return errorCode.malformedRequest;
  let length = 0;
  for (let index = valueStart; index < valueEnd; index++) {
    const digit = head.buffer[head.base + index]! - 0x30;
    if (digit < 0 || digit > 9) return errorCode.malformedRequest;
    // Past 2^53 the sum is no longer exact, but stays past every limit (all are safe integers).
    length = length * 10 + digit;
  }
  if (!Number.isSafeInteger(length)) return errorCode.bodyTooLarge;
  if (head.contentLength >= 0 && head.contentLength !== length) return errorCode.malformedRequest;
  head.contentLength = length;
  if (length > limits.maxBodyBytes) return errorCode.bodyTooLarge;
  return 0;
}

// The list visitors are module functions that take `head`: a closure over it made in
// interpretField would have JavaScriptCore allocate a scope on every header field of every
// request, Connection or not.

function visitConnectionOption(head: ParsedHead, start: number, end: number): number {
  if (nameIs(head, start, end, "close")) head.connectionClose = true;
  else if (nameIs(head, start, end, "keep-alive")) head.connectionKeepAlive = true;
  return 0;
}

function visitExpectation(head: ParsedHead, start: number, end: number): number {
  if (!nameIs(head, start, end, "100-continue")) return errorCode.unsupportedExpectation;
  head.expectContinue = true;
  return 0;
}

function visitTransferCoding(head: ParsedHead, start: number, end: number): number {
  // RFC 9112 §6.3: chunked must be the final coding, and appear once.
  if (head.chunked) return errorCode.malformedRequest;
  if (nameIs(head, start, end, "chunked")) {
    head.chunked = true;
    return 0;
  }
  return errorCode.unsupportedTransferCoding;
}

function interpretTransferEncoding(head: ParsedHead, valueStart: number, valueEnd: number): number {
  head.transferEncodingSeen = true;
  return forEachListElement(head, valueStart, valueEnd, visitTransferCoding);
}

/** Calls `visit` for each non-empty comma-separated element; stops at its first non-zero result. */
function forEachListElement(
  head: ParsedHead,
  valueStart: number,
  valueEnd: number,
  visit: (head: ParsedHead, start: number, end: number) => number,
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
      const result = visit(head, trimmedStart, trimmedEnd);
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
  if (head.pathStart !== head.targetStart && !hostNamesTarget(head)) {
    return errorCode.malformedRequest;
  }
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
