import { describe, expect, test } from "bun:test";
import { errorNameOf } from "../../engine/src/errors.ts";
import {
  ChunkedBodyDecoder,
  chunkedComplete,
  chunkedIncomplete,
} from "../../engine/src/parser/chunked-body.ts";
import { ParsedHead } from "../../engine/src/parser/parsed-head.ts";
import {
  headComplete,
  headIncomplete,
  parseRequestHead,
} from "../../engine/src/parser/request-head.ts";
import { decodeAcrossTurns } from "../../engine/test/support/decode-across-turns.ts";
import { expectLinear, filled, latin1Bytes, linearCase } from "./support/linear-work.ts";

// Issue "No client can deny service to other clients", point 3, for the engine's parsers: the
// request head and the chunked body, fed whole and one byte at a time (a client may send its
// bytes in any split). Limits are raised so that the parsers, not the limits, meet the input.

const outcomeOf = (code: number, incomplete: number, complete: number) =>
  code === incomplete ? "incomplete" : code === complete ? "complete" : errorNameOf(code);

const headLimits = {
  maxRequestLineBytes: 1 << 20,
  maxHeaderBytes: 1 << 20,
  maxHeaderCount: 1 << 16,
  maxBodyBytes: 1 << 20,
};
// One head result for every run: its offsets table is large with these limits.
const head = new ParsedHead(headLimits.maxHeaderCount);

function parseHead(bytes: Uint8Array): string {
  head.reset(bytes, 0);
  return outcomeOf(parseRequestHead(head, bytes.length, headLimits), headIncomplete, headComplete);
}

function parseHeadBytewise(bytes: Uint8Array): string {
  head.reset(bytes, 0);
  let code = headIncomplete;
  for (let end = 1; end <= bytes.length && code === headIncomplete; end++) {
    code = parseRequestHead(head, end, headLimits);
  }
  return outcomeOf(code, headIncomplete, headComplete);
}

const isComplete = (outcome: unknown) => expect(outcome).toBe("complete");
const headWith = (bytes: number, prefix: string, unit: string, suffix: string) =>
  latin1Bytes(filled(bytes, `GET / HTTP/1.1\r\nHost: h\r\n${prefix}`, unit, `${suffix}\r\n\r\n`));

describe("request head (RFC 9112 §2-5)", () => {
  test.each([
    linearCase({
      name: "a field value of spaces, then a letter",
      build: (bytes) => headWith(bytes, "X:", " ", "x"),
      run: parseHead,
      check: isComplete,
    }),
    linearCase({
      name: "a letter, then trailing spaces and tabs",
      build: (bytes) => headWith(bytes, "X: x", " \t", ""),
      run: parseHead,
      check: isComplete,
    }),
    linearCase({
      name: "a Connection list of empty elements",
      build: (bytes) => headWith(bytes, "Connection: ", ", \t", "close"),
      run: parseHead,
      check: isComplete,
    }),
    linearCase({
      name: "a Transfer-Encoding list of empty elements",
      build: (bytes) => headWith(bytes, "Transfer-Encoding: ", " ,", "chunked"),
      run: parseHead,
      check: isComplete,
    }),
    linearCase({
      name: "many empty field values",
      build: (bytes) => headWith(bytes, "", "a:\r\n", "b:"),
      run: parseHead,
      check: isComplete,
    }),
    linearCase({
      name: "empty lines before the request line",
      build: (bytes) => latin1Bytes(filled(bytes, "", "\r\n", "GET / HTTP/1.1\r\nHost: h\r\n\r\n")),
      run: parseHead,
      check: isComplete,
    }),
    linearCase({
      name: "a target of percent escapes",
      build: (bytes) => latin1Bytes(filled(bytes, "GET /", "%41", " HTTP/1.1\r\nHost: h\r\n\r\n")),
      run: parseHead,
      check: isComplete,
    }),
    linearCase({
      name: "a query of separators",
      build: (bytes) => latin1Bytes(filled(bytes, "GET /?", "&=", " HTTP/1.1\r\nHost: h\r\n\r\n")),
      run: parseHead,
      check: isComplete,
    }),
    linearCase({
      name: "a field value of spaces, one byte at a time",
      build: (bytes) => headWith(bytes, "X:", " ", "x"),
      run: parseHeadBytewise,
      check: isComplete,
    }),
    linearCase({
      name: "many field lines, one byte at a time",
      build: (bytes) => headWith(bytes, "", "a:\r\n", "b:"),
      run: parseHeadBytewise,
      check: isComplete,
    }),
  ])("$name", (testCase) => expectLinear(testCase));
});

const chunkedLimits = {
  maxBodyBytes: 1 << 20,
  maxChunkExtensionBytes: 1 << 20,
  maxTrailerBytes: 1 << 20,
};
const decoder = new ChunkedBodyDecoder();
const decoded = new Uint8Array(chunkedLimits.maxBodyBytes);

function decode(bytes: Uint8Array): string {
  decoder.reset();
  const code = decodeAcrossTurns(decoder, bytes, 0, bytes.length, decoded, chunkedLimits);
  return outcomeOf(code, chunkedIncomplete, chunkedComplete);
}

function decodeBytewise(bytes: Uint8Array): string {
  decoder.reset();
  let code = chunkedIncomplete;
  for (let start = 0; start < bytes.length && code === chunkedIncomplete; start++) {
    code = decodeAcrossTurns(decoder, bytes, start, start + 1, decoded, chunkedLimits);
  }
  return outcomeOf(code, chunkedIncomplete, chunkedComplete);
}

const chunked = (bytes: number, prefix: string, unit: string, suffix: string) =>
  latin1Bytes(filled(bytes, prefix, unit, suffix));

describe("chunked body (RFC 9112 §7.1)", () => {
  test.each([
    linearCase({
      name: "many one-byte chunks",
      build: (bytes) => chunked(bytes, "", "1\r\nx\r\n", "0\r\n\r\n"),
      run: decode,
      check: isComplete,
    }),
    linearCase({
      name: "a long chunk extension: many members, quoted strings of spaces, tabs and escapes",
      build: (bytes) => chunked(bytes, "1", ';a=b;c=" \t\\""', "\r\nx\r\n0\r\n\r\n"),
      run: decode,
      check: isComplete,
    }),
    linearCase({
      name: "whitespace before the chunk extension",
      build: (bytes) => chunked(bytes, "1", " \t", ";a\r\nx\r\n0\r\n\r\n"),
      run: decode,
      check: isComplete,
    }),
    linearCase({
      // More than `maxChunkSizeDigits` (16) digits is refused at the 17th.
      name: "leading zeros in a chunk size",
      build: (bytes) => chunked(bytes, "", "0", "1\r\nx\r\n0\r\n\r\n"),
      run: decode,
      check: (outcome) => expect(outcome).toBe("malformedChunkedBody"),
    }),
    linearCase({
      name: "many empty trailer fields",
      build: (bytes) => chunked(bytes, "0\r\n", "a:\r\n", "\r\n"),
      run: decode,
      check: isComplete,
    }),
    linearCase({
      name: "many one-byte chunks, one byte at a time",
      build: (bytes) => chunked(bytes, "", "1\r\nx\r\n", "0\r\n\r\n"),
      run: decodeBytewise,
      check: isComplete,
    }),
  ])("$name", (testCase) => expectLinear(testCase));
});
