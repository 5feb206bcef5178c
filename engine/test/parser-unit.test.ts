// Direct tests of the pure parsers: the request-head parser and the chunked body decoder. Every
// case is parsed in one call and again fed in pieces (one byte at a time, and split at every
// offset); both must give the same answer, because the engine may receive any split.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type EngineErrorName, errorNameOf } from "../src/errors.ts";
import {
  ChunkedBodyDecoder,
  type ChunkedLimits,
  chunkedComplete,
  chunkedIncomplete,
} from "../src/parser/chunked-body.ts";
import { ParsedHead } from "../src/parser/parsed-head.ts";
import {
  type HeadLimits,
  headComplete,
  headIncomplete,
  parseRequestHead,
} from "../src/parser/request-head.ts";
import { scanAuthority } from "../src/parser/request-line.ts";

type Outcome = "incomplete" | "complete" | EngineErrorName;

function outcomeOf(code: number, incomplete: number, complete: number): Outcome {
  if (code === incomplete) return "incomplete";
  if (code === complete) return "complete";
  return errorNameOf(code);
}

function bytesOf(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "latin1"));
}

// ---- request heads ------------------------------------------------------------------------------

const headLimits: HeadLimits = {
  maxRequestLineBytes: 64,
  maxHeaderBytes: 256,
  maxHeaderCount: 8,
  maxBodyBytes: 100,
};

/** Everything a parse tells, as strings, so that a whole parse and a piecewise one compare. */
interface HeadView {
  readonly outcome: Outcome;
  readonly headEnd?: number;
  readonly method?: string;
  readonly target?: string;
  readonly path?: string;
  readonly query?: string | null;
  readonly versionMinor?: number;
  readonly headers?: string[];
  readonly contentLength?: number;
  readonly chunked?: boolean;
  readonly keepAlive?: boolean;
  readonly expectContinue?: boolean;
}

function viewOf(head: ParsedHead, code: number): HeadView {
  const outcome = outcomeOf(code, headIncomplete, headComplete);
  if (outcome !== "complete") return { outcome };
  const text = (start: number, end: number) =>
    Buffer.from(head.buffer.subarray(head.base + start, head.base + end)).toString("latin1");
  const headers: string[] = [];
  for (let index = 0; index < head.headerCount; index++) {
    const at = (part: number) => head.fieldOffset(index, part);
    headers.push(`${text(at(0), at(1))}=${text(at(2), at(3))}`);
  }
  return {
    outcome,
    headEnd: head.headEnd,
    method: text(head.methodStart, head.methodEnd),
    target: text(head.targetStart, head.targetEnd),
    path: text(head.pathStart, head.pathEnd),
    query: head.pathEnd < head.targetEnd ? text(head.pathEnd + 1, head.targetEnd) : null,
    versionMinor: head.versionMinor,
    headers,
    contentLength: head.contentLength,
    chunked: head.chunked,
    keepAlive: head.keepAlive,
    expectContinue: head.expectContinue,
  };
}

/** Parses `text` in one call, placed at a non-zero base behind unrelated bytes. */
function parseAtOnce(text: string, limits = headLimits): HeadView {
  const filler = "\r\nxx ";
  const buffer = bytesOf(filler + text);
  const head = new ParsedHead(limits.maxHeaderCount);
  head.reset(buffer, filler.length);
  return viewOf(head, parseRequestHead(head, buffer.length, limits));
}

/**
 * Parses `text` revealed piece by piece, ending each piece at one of `cuts` (then at the end).
 * Bytes not yet revealed are LF, so a parser that looked past `end` would be caught.
 */
function parseInPieces(text: string, cuts: readonly number[], limits = headLimits): HeadView {
  const source = bytesOf(text);
  const buffer = new Uint8Array(source.length).fill(0x0a);
  const head = new ParsedHead(limits.maxHeaderCount);
  head.reset(buffer, 0);
  let revealed = 0;
  let code = headIncomplete;
  for (const end of [...cuts, source.length]) {
    if (end <= revealed) continue;
    buffer.set(source.subarray(revealed, end), revealed);
    revealed = end;
    code = parseRequestHead(head, end, limits);
    if (code !== headIncomplete) break;
  }
  return viewOf(head, code);
}

function everyOffset(length: number): number[] {
  return Array.from({ length }, (_, index) => index + 1);
}

/** The same request parsed every way: at once, byte by byte, and split once at every offset. */
function expectSameEveryWay(text: string, expected: HeadView, limits = headLimits): void {
  const length = text.length;
  expect({ text, view: parseAtOnce(text, limits) }).toEqual({ text, view: expected });
  expect({ text, byteByByte: parseInPieces(text, everyOffset(length), limits) }).toEqual({
    text,
    byteByByte: expected,
  });
  for (let split = 1; split < length; split++) {
    expect({ text, split, view: parseInPieces(text, [split], limits) }).toEqual({
      text,
      split,
      view: expected,
    });
  }
}

interface ValidHead {
  readonly name: string;
  readonly request: string;
  readonly view: Omit<HeadView, "outcome" | "headEnd">;
  /** Bytes after the head that belong to the body or to the next request. */
  readonly rest?: string;
}

const plain = { contentLength: -1, chunked: false, keepAlive: true, expectContinue: false };

const validHeads: readonly ValidHead[] = [
  {
    name: "origin-form with a query",
    request: "GET /a/b?x=1&y=?z HTTP/1.1\r\nHost: example.com\r\n\r\n",
    view: {
      method: "GET",
      target: "/a/b?x=1&y=?z",
      path: "/a/b",
      query: "x=1&y=?z",
      versionMinor: 1,
      headers: ["Host=example.com"],
      ...plain,
    },
  },
  {
    name: "absolute-form with port, path and query",
    request: "GET http://example.com:8080/a?b HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
    view: {
      method: "GET",
      target: "http://example.com:8080/a?b",
      path: "/a",
      query: "b",
      versionMinor: 1,
      headers: ["Host=example.com:8080"],
      ...plain,
    },
  },
  {
    name: "absolute-form without a path, with a query",
    request: "GET https://h?q HTTP/1.1\r\nHost: h\r\n\r\n",
    view: {
      method: "GET",
      target: "https://h?q",
      path: "",
      query: "q",
      versionMinor: 1,
      headers: ["Host=h"],
      ...plain,
    },
  },
  {
    name: "[ ] | ^ in the path and [ ] { } | ^ backquote in the query, as browsers send them",
    request: "GET /dir/[id]/a|b^c?files[]=x&q={a}&a=b|c&x=^&t=`1` HTTP/1.1\r\nHost: h\r\n\r\n",
    view: {
      method: "GET",
      target: "/dir/[id]/a|b^c?files[]=x&q={a}&a=b|c&x=^&t=`1`",
      path: "/dir/[id]/a|b^c",
      query: "files[]=x&q={a}&a=b|c&x=^&t=`1`",
      versionMinor: 1,
      headers: ["Host=h"],
      ...plain,
    },
  },
  {
    name: "asterisk-form OPTIONS",
    request: "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
    view: {
      method: "OPTIONS",
      target: "*",
      path: "*",
      query: null,
      versionMinor: 1,
      headers: ["Host=h"],
      ...plain,
    },
  },
  {
    name: "HTTP/1.0 without Host does not keep alive",
    request: "GET /old HTTP/1.0\r\n\r\n",
    view: {
      method: "GET",
      target: "/old",
      path: "/old",
      query: null,
      versionMinor: 0,
      headers: [],
      ...plain,
      keepAlive: false,
    },
  },
  {
    name: "HTTP/1.0 with Connection: Keep-Alive, upgrade keeps alive",
    request: "GET / HTTP/1.0\r\nConnection: Keep-Alive, upgrade\r\n\r\n",
    view: {
      method: "GET",
      target: "/",
      path: "/",
      query: null,
      versionMinor: 0,
      headers: ["Connection=Keep-Alive, upgrade"],
      ...plain,
    },
  },
  {
    name: "HTTP/1.2 is read as 1.1",
    request: "GET / HTTP/1.2\r\nHost: h\r\n\r\n",
    view: {
      method: "GET",
      target: "/",
      path: "/",
      query: null,
      versionMinor: 1,
      headers: ["Host=h"],
      ...plain,
    },
  },
  {
    name: "empty lines before the request line are skipped",
    request: "\r\n\r\nPURGE /x HTTP/1.1\r\nHost: h\r\n\r\n",
    view: {
      method: "PURGE",
      target: "/x",
      path: "/x",
      query: null,
      versionMinor: 1,
      headers: ["Host=h"],
      ...plain,
    },
  },
  {
    name: "OWS around values, HTAB inside, obs-text, empty values, token names",
    request:
      "M-SEARCH /%7Euser/a%2Fb HTTP/1.1\r\nHost:h\r\nX-Ows: \t spaced  value \t\r\n" +
      "X-Tab: a\tb\r\nX-Obs: caf\xe9 \x80\xff\r\nX-Empty:\r\nX-Blank:   \r\n!#$%&'*+-.^_`|~: t\r\n\r\n",
    view: {
      method: "M-SEARCH",
      target: "/%7Euser/a%2Fb",
      path: "/%7Euser/a%2Fb",
      query: null,
      versionMinor: 1,
      headers: [
        "Host=h",
        "X-Ows=spaced  value",
        "X-Tab=a\tb",
        "X-Obs=caf\xe9 \x80\xff",
        "X-Empty=",
        "X-Blank=",
        "!#$%&'*+-.^_`|~=t",
      ],
      ...plain,
    },
  },
  {
    name: "identical duplicate Content-Length, any case",
    request: "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\ncontent-length: 003\r\n\r\n",
    rest: "abc",
    view: {
      method: "POST",
      target: "/p",
      path: "/p",
      query: null,
      versionMinor: 1,
      headers: ["Host=h", "Content-Length=3", "content-length=003"],
      ...plain,
      contentLength: 3,
    },
  },
  {
    name: "chunked (any case), Expect: 100-continue (any case), Connection: close",
    request:
      "PUT /u HTTP/1.1\r\nHost: [::1]:8080\r\nTransfer-Encoding: Chunked\r\n" +
      "Expect: 100-Continue\r\nConnection: keep-alive, close\r\n\r\n",
    rest: "0\r\n\r\n",
    view: {
      method: "PUT",
      target: "/u",
      path: "/u",
      query: null,
      versionMinor: 1,
      headers: [
        "Host=[::1]:8080",
        "Transfer-Encoding=Chunked",
        "Expect=100-Continue",
        "Connection=keep-alive, close",
      ],
      contentLength: -1,
      chunked: true,
      keepAlive: false,
      expectContinue: true,
    },
  },
  {
    name: "a Content-Length of 16 digits, zeros first, is its value (RFC 9110 §8.6: 1*DIGIT)",
    request: "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 0000000000000003\r\n\r\n",
    rest: "abc",
    view: {
      method: "POST",
      target: "/p",
      path: "/p",
      query: null,
      versionMinor: 1,
      headers: ["Host=h", "Content-Length=0000000000000003"],
      ...plain,
      contentLength: 3,
    },
  },
  {
    name: "Expect as a list (RFC 9110 §10.1.1): empty elements, 100-continue twice",
    request:
      "PUT /u HTTP/1.1\r\nHost: h\r\nExpect: , 100-continue,,100-continue ,\r\nContent-Length: 1\r\n\r\n",
    rest: "x",
    view: {
      method: "PUT",
      target: "/u",
      path: "/u",
      query: null,
      versionMinor: 1,
      headers: ["Host=h", "Expect=, 100-continue,,100-continue ,", "Content-Length=1"],
      ...plain,
      contentLength: 1,
      expectContinue: true,
    },
  },
  {
    name: "an empty Expect expects nothing",
    request: "GET / HTTP/1.1\r\nHost: h\r\nExpect:\r\n\r\n",
    view: {
      method: "GET",
      target: "/",
      path: "/",
      query: null,
      versionMinor: 1,
      headers: ["Host=h", "Expect="],
      ...plain,
    },
  },
  {
    name: "an absolute-form target and a Host naming it in another case",
    request: "GET http://Example.COM:8080/a HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
    view: {
      method: "GET",
      target: "http://Example.COM:8080/a",
      path: "/a",
      query: null,
      versionMinor: 1,
      headers: ["Host=example.com:8080"],
      ...plain,
    },
  },
  {
    name: "an empty Host is accepted (RFC 9112 §3.2)",
    request: "GET http://h/ HTTP/1.1\r\nHost:\r\n\r\n",
    view: {
      method: "GET",
      target: "http://h/",
      path: "/",
      query: null,
      versionMinor: 1,
      headers: ["Host="],
      ...plain,
    },
  },
  {
    name: "HTTP/1.0 ignores an unknown expectation (RFC 9110 §10.1.1)",
    request: "GET / HTTP/1.0\r\nExpect: something-else\r\n\r\n",
    view: {
      method: "GET",
      target: "/",
      path: "/",
      query: null,
      versionMinor: 0,
      headers: ["Expect=something-else"],
      ...plain,
      keepAlive: false,
    },
  },
];

describe("parseRequestHead accepts", () => {
  for (const { name, request, view, rest = "" } of validHeads) {
    test(`${name}, at once, byte by byte and split at every offset`, () => {
      const expected: HeadView = { outcome: "complete", headEnd: request.length, ...view };
      expectSameEveryWay(request + rest, expected);
    });
  }

  test("a head followed by a pipelined request ends at its own blank line", () => {
    const first = "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n";
    const view = parseAtOnce(`${first}GET /2 HTTP/1.1\r\nHost: h\r\n\r\n`);
    expect({ headEnd: view.headEnd, target: view.target }).toEqual({
      headEnd: first.length,
      target: "/1",
    });
  });

  test("is incomplete until the last byte of the blank line, one byte at a time", () => {
    const request = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
    const source = bytesOf(request);
    const head = new ParsedHead(headLimits.maxHeaderCount);
    head.reset(source, 0);
    const outcomes: Outcome[] = [];
    for (let end = 1; end <= source.length; end++) {
      outcomes.push(
        outcomeOf(parseRequestHead(head, end, headLimits), headIncomplete, headComplete),
      );
    }
    const expected: Outcome[] = Array(source.length - 1).fill("incomplete");
    expect(outcomes).toEqual([...expected, "complete"]);
  });

  test("a reused ParsedHead forgets the previous request", () => {
    const head = new ParsedHead(headLimits.maxHeaderCount);
    const first = bytesOf(
      "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n" +
        "Connection: close\r\n\r\n",
    );
    head.reset(first, 0);
    expect(parseRequestHead(head, first.length, headLimits)).toBe(headComplete);
    const second = bytesOf("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    head.reset(second, 0);
    expect(viewOf(head, parseRequestHead(head, second.length, headLimits))).toEqual({
      outcome: "complete",
      headEnd: second.length,
      method: "GET",
      target: "/",
      path: "/",
      query: null,
      versionMinor: 1,
      headers: ["Host=h"],
      ...plain,
    });
  });
});

const invalidHeads: ReadonlyArray<readonly [string, string, EngineErrorName]> = [
  ["a method with a non-token byte", "G@T / HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a space before the method", " GET / HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["two spaces after the method", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["two spaces before the version", "GET /  HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a space after the version", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n", "malformedRequest"],
  ["HTAB as separator", "GET\t/ HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["no version (HTTP/0.9 style)", "GET /\r\n\r\n", "malformedRequest"],
  ["a lower-case version", "GET / http/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a two-digit minor version", "GET / HTTP/1.10\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", "unsupportedVersion"],
  ["HTTP/0.9", "GET / HTTP/0.9\r\n\r\n", "unsupportedVersion"],
  ['a " in the target', 'GET /a"b HTTP/1.1\r\nHost: h\r\n\r\n', "malformedRequest"],
  ["a { in the path", "GET /a{b HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a # in the target", "GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a \\ in the path", "GET /a\\b?c HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  [
    "an obs-text byte in the target",
    "GET /caf\xe9 HTTP/1.1\r\nHost: h\r\n\r\n",
    "malformedRequest",
  ],
  ["a truncated % escape", "GET /a%4 HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a non-hex % escape", "GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["userinfo in absolute-form", "GET http://u@h/ HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["an empty authority", "GET http:///a HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["an empty host with a port", "GET http://:80/ HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a non-digit port", "GET http://h:8o/ HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a target with no scheme", "GET example.com HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["asterisk-form with GET", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["no Host on HTTP/1.1", "GET / HTTP/1.1\r\n\r\n", "malformedRequest"],
  ["two Host lines", "GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", "malformedRequest"],
  ["a Host with a space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", "malformedRequest"],
  ["a Host with userinfo", "GET / HTTP/1.1\r\nHost: u@h\r\n\r\n", "malformedRequest"],
  ["a Host with a path", "GET / HTTP/1.1\r\nHost: h/x\r\n\r\n", "malformedRequest"],
  ["a Host with a bad port", "GET / HTTP/1.1\r\nHost: h:x\r\n\r\n", "malformedRequest"],
  ["a Host that is only a port", "GET / HTTP/1.1\r\nHost: :80\r\n\r\n", "malformedRequest"],
  ["an unclosed IP literal Host", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", "malformedRequest"],
  ["obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", "malformedRequest"],
  ["a space before the colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", "malformedRequest"],
  ["an empty field name", "GET / HTTP/1.1\r\nHost: h\r\n: x\r\n\r\n", "malformedRequest"],
  ["a line without a colon", "GET / HTTP/1.1\r\nHost: h\r\nX\r\n\r\n", "malformedRequest"],
  ["NUL in a value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\0b\r\n\r\n", "malformedRequest"],
  ["DEL in a value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\x7fb\r\n\r\n", "malformedRequest"],
  ["a bare CR in a value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", "malformedRequest"],
  ["bare LF line endings", "GET / HTTP/1.1\nHost: h\n\n", "malformedRequest"],
  ["a bare LF ending the head", "GET / HTTP/1.1\r\nHost: h\r\n\n", "malformedRequest"],
  // Refused at the byte after the CR, not left incomplete until a LF that may never come.
  ["bare CR line endings, no LF at all", "GET / HTTP/1.1\rHost: h\r\r", "malformedRequest"],
  ["a bare CR in a field line, no LF after it", "GET / HTTP/1.1\r\nHost: h\rX", "malformedRequest"],
  ["a bare CR in the request line, no LF after it", "GET /a\rb", "malformedRequest"],
  ["a CR CR LF ending the request line", "GET / HTTP/1.1\r\r\nHost: h\r\n\r\n", "malformedRequest"],
  [
    "Content-Length -1",
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n",
    "malformedRequest",
  ],
  [
    "Content-Length 1e3",
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1e3\r\n\r\n",
    "malformedRequest",
  ],
  [
    "Content-Length +5",
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n",
    "malformedRequest",
  ],
  [
    "Content-Length 5, 5",
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\n",
    "malformedRequest",
  ],
  [
    "an empty Content-Length",
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \r\n\r\n",
    "malformedRequest",
  ],
  [
    "conflicting Content-Length",
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
    "malformedRequest",
  ],
  [
    "Transfer-Encoding with Content-Length",
    "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
    "malformedRequest",
  ],
  [
    "Transfer-Encoding: gzip, chunked",
    "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    "unsupportedTransferCoding",
  ],
  [
    "Transfer-Encoding: chunked, gzip",
    "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
    "malformedRequest",
  ],
  [
    "chunked twice over two lines",
    "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
    "malformedRequest",
  ],
  [
    "Transfer-Encoding: gzip",
    "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n",
    "unsupportedTransferCoding",
  ],
  [
    "an empty Transfer-Encoding",
    "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \r\n\r\n",
    "malformedRequest",
  ],
  [
    "Transfer-Encoding on HTTP/1.0",
    "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
    "malformedRequest",
  ],
  [
    "an unknown expectation",
    "GET / HTTP/1.1\r\nHost: h\r\nExpect: something-else\r\n\r\n",
    "unsupportedExpectation",
  ],
  [
    "an unknown expectation beside 100-continue",
    "GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue, something-else\r\n\r\n",
    "unsupportedExpectation",
  ],
  // RFC 9112 §3.2.3: CONNECT takes host ":" port; a valid one asks for a tunnel, not made (501).
  [
    "a CONNECT to host and port (no tunnels)",
    "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    "connectNotImplemented",
  ],
  [
    "a CONNECT to an IPv6 literal and port (no tunnels)",
    "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\n\r\n",
    "connectNotImplemented",
  ],
  ["a CONNECT to a path", "CONNECT / HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a CONNECT without a port", "CONNECT h HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a CONNECT with an empty port", "CONNECT h: HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  ["a CONNECT to a port alone", "CONNECT :443 HTTP/1.1\r\nHost: h\r\n\r\n", "malformedRequest"],
  [
    "a CONNECT to an absolute URI",
    "CONNECT http://h:80/ HTTP/1.1\r\nHost: h\r\n\r\n",
    "malformedRequest",
  ],
  [
    "an absolute-form target naming another host than Host",
    "GET http://evil.example/host HTTP/1.1\r\nHost: good.example\r\n\r\n",
    "malformedRequest",
  ],
  [
    "an absolute-form target whose port differs from Host's",
    "GET http://h:8080/ HTTP/1.1\r\nHost: h\r\n\r\n",
    "malformedRequest",
  ],
  [
    "a Content-Length of 20 digits: over every limit",
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n",
    "bodyTooLarge",
  ],
  [
    "a long Content-Length with a letter at its end",
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9999999999999999999x\r\n\r\n",
    "malformedRequest",
  ],
  [
    "Content-Length over maxBodyBytes (100)",
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n",
    "bodyTooLarge",
  ],
  [
    "nine field lines (maxHeaderCount 8)",
    `GET / HTTP/1.1\r\nHost: h\r\n${"X: y\r\n".repeat(8)}\r\n`,
    "tooManyHeaders",
  ],
  [
    "a 65-byte request line (maxRequestLineBytes 64)",
    `GET /${"a".repeat(51)} HTTP/1.1\r\nHost: h\r\n\r\n`,
    "requestLineTooLong",
  ],
  [
    "a request line longer than the whole head limit is still 414",
    `GET /${"a".repeat(300)} HTTP/1.1\r\nHost: h\r\n\r\n`,
    "requestLineTooLong",
  ],
  [
    "a 66-byte request line ending in a bare LF is 414 before it is malformed",
    `GET /${"a".repeat(52)} HTTP/1.1\nHost: h\r\n\r\n`,
    "requestLineTooLong",
  ],
  [
    "a bare CR early in a request line later over its limit is malformed, not 414",
    `GET /a\rb${"a".repeat(80)} HTTP/1.1\r\nHost: h\r\n\r\n`,
    "malformedRequest",
  ],
  [
    "a request line cut short by a LF where its version should be, the next LF past the limit",
    `GET /${"a".repeat(55)} X\r\nAB: c\r\n\r\n`,
    "malformedRequest",
  ],
  [
    "a bare CR after a request line passed its limit is 414",
    `GET /${"a".repeat(70)}\rb HTTP/1.1\r\nHost: h\r\n\r\n`,
    "requestLineTooLong",
  ],
  [
    "a head over maxHeaderBytes (256)",
    `GET / HTTP/1.1\r\nHost: h\r\nX: ${"a".repeat(230)}\r\n\r\n`,
    "headerSectionTooLarge",
  ],
  [
    "a field line running past maxHeaderBytes that would also be malformed",
    `GET / HTTP/1.1\r\nHost: h\r\nX: ${"a".repeat(300)}\n\r\n`,
    "headerSectionTooLarge",
  ],
];

describe("parseRequestHead rejects, the same way however the bytes are split", () => {
  for (const [name, request, error] of invalidHeads) {
    test(`${name}: ${error}`, () => {
      expectSameEveryWay(request, { outcome: error });
    });
  }
});

describe("target bytes: every byte value, in the path and in the query", () => {
  // Written out here, not taken from the parser's tables: RFC 3986 pchar, plus what browsers send
  // raw (WHATWG URL): [ ] | ^ in the path; those, "?" and { } backquote in the query.
  const alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const inPath = `${alphanumeric}-._~!$&'()*+,;=:@/[]|^`;
  const inQuery = `${inPath}?{}\`%\\`;
  const outcomes = (target: (byte: string) => string) =>
    Array.from({ length: 256 }, (_, code) => {
      const byte = String.fromCharCode(code);
      return `${code}:${parseAtOnce(`GET ${target(byte)} HTTP/1.1\r\nHost: h\r\n\r\n`).outcome}`;
    });
  const expected = (allowed: string, alsoAccepted: string) =>
    Array.from({ length: 256 }, (_, code) => {
      const byte = String.fromCharCode(code);
      const accepted = allowed.includes(byte) || alsoAccepted.includes(byte);
      return `${code}:${accepted ? "complete" : "malformedRequest"}`;
    });

  test("in the path: pchar and [ ] | ^ are accepted, every other byte is a 400", () => {
    // "?" starts an (empty) query; a "%" without two hex digits after it is refused.
    expect(outcomes((byte) => `/a${byte}`)).toEqual(expected(inPath, "?"));
  });

  test("in the query: the path bytes, ? { } backquote, backslash and a stray % are accepted, every other byte is a 400", () => {
    expect(outcomes((byte) => `/a?${byte}`)).toEqual(expected(inQuery, ""));
  });
});

describe("parseRequestHead limits (maxRequestLineBytes 64, maxHeaderBytes 256, maxHeaderCount 8)", () => {
  const withRequestLine = (length: number, prefix = "") =>
    `${prefix}GET /${"a".repeat(length - 14)} HTTP/1.1\r\nHost: h\r\n\r\n`;
  const headOf = (length: number, prefix = "") => {
    const fixed = `${prefix}GET / HTTP/1.1\r\nHost: h\r\nX: \r\n\r\n`;
    return fixed.replace("X: ", `X: ${"a".repeat(length - fixed.length)}`);
  };

  test("maxRequestLineBytes counts method, target and version, not the CRLF or empty lines before", () => {
    expect(withRequestLine(64).indexOf("\r\n")).toBe(64);
    expect({
      atLimit: parseAtOnce(withRequestLine(64)).outcome,
      afterEmptyLines: parseAtOnce(withRequestLine(64, "\r\n\r\n")).outcome,
      overLimit: parseAtOnce(withRequestLine(65)).outcome,
      overLimitIncomplete: parseInPieces(withRequestLine(65), [66]).outcome,
      atLimitIncomplete: parseInPieces(withRequestLine(64), [65]).outcome,
    }).toEqual({
      atLimit: "complete",
      afterEmptyLines: "complete",
      overLimit: "requestLineTooLong",
      overLimitIncomplete: "requestLineTooLong",
      atLimitIncomplete: "complete",
    });
  });

  test("maxHeaderBytes counts the whole head: empty lines before, request line, fields, final CRLFCRLF", () => {
    expect([headOf(256).length, headOf(256, "\r\n").length]).toEqual([256, 256]);
    const incomplete = headOf(257).slice(0, 255);
    expect({
      atLimit: parseAtOnce(headOf(256)).outcome,
      atLimitWithEmptyLine: parseAtOnce(headOf(256, "\r\n")).outcome,
      overLimit: parseAtOnce(headOf(257)).outcome,
      overLimitByEmptyLine: parseAtOnce(`\r\n${headOf(256)}`).outcome,
      incompleteBelowLimit: parseAtOnce(incomplete).outcome,
      incompleteAtLimit: parseAtOnce(headOf(257).slice(0, 256)).outcome,
    }).toEqual({
      atLimit: "complete",
      atLimitWithEmptyLine: "complete",
      overLimit: "headerSectionTooLarge",
      overLimitByEmptyLine: "headerSectionTooLarge",
      incompleteBelowLimit: "incomplete",
      incompleteAtLimit: "headerSectionTooLarge",
    });
  });

  test("a field line whose LF is past maxHeaderBytes is 431 before its own error is seen", () => {
    // A second Host is a 400 of its own; the limit the bytes before its LF passed answers first.
    const withSecondHostEndingAt = (lineFeed: number) => {
      const start = "GET / HTTP/1.1\r\nHost: h\r\nHost: ";
      return `${start}${"a".repeat(lineFeed - 1 - start.length)}\r\n\r\n`;
    };
    expect(withSecondHostEndingAt(256).indexOf("\n", 30)).toBe(256);
    expectSameEveryWay(withSecondHostEndingAt(255), { outcome: "malformedRequest" });
    expectSameEveryWay(withSecondHostEndingAt(256), { outcome: "headerSectionTooLarge" });
  });

  test("maxHeaderCount counts field lines, Host included", () => {
    const withFields = (count: number) =>
      `GET / HTTP/1.1\r\nHost: h\r\n${"X: y\r\n".repeat(count - 1)}\r\n`;
    expect([parseAtOnce(withFields(8)).outcome, parseAtOnce(withFields(9)).outcome]).toEqual([
      "complete",
      "tooManyHeaders",
    ]);
  });

  test("maxBodyBytes bounds a declared Content-Length", () => {
    const withLength = (length: number) =>
      `POST / HTTP/1.1\r\nHost: h\r\nContent-Length: ${length}\r\n\r\n`;
    expect([parseAtOnce(withLength(100)).outcome, parseAtOnce(withLength(101)).outcome]).toEqual([
      "complete",
      "bodyTooLarge",
    ]);
  });
});

// ---- chunked bodies -----------------------------------------------------------------------------

const chunkedLimits: ChunkedLimits = {
  maxBodyBytes: 32,
  maxChunkExtensionBytes: 16,
  maxTrailerBytes: 32,
};

interface BodyView {
  readonly outcome: Outcome;
  readonly body?: string;
  /** Input bytes that belonged to the body (what follows is the next request). */
  readonly consumed?: number;
}

function decodeAtOnce(text: string, limits = chunkedLimits): BodyView {
  const filler = "zz";
  const input = bytesOf(filler + text);
  const output = new Uint8Array(limits.maxBodyBytes);
  const decoder = new ChunkedBodyDecoder();
  const code = decoder.decode(input, filler.length, input.length, output, limits);
  return bodyViewOf(decoder, output, code, decoder.consumed);
}

function decodeInPieces(text: string, cuts: readonly number[], limits = chunkedLimits): BodyView {
  const input = bytesOf(text);
  const output = new Uint8Array(limits.maxBodyBytes);
  const decoder = new ChunkedBodyDecoder();
  let start = 0;
  let code = chunkedIncomplete;
  for (const end of [...cuts, input.length]) {
    if (end <= start) continue;
    code = decoder.decode(input, start, end, output, limits);
    if (code !== chunkedIncomplete)
      return bodyViewOf(decoder, output, code, start + decoder.consumed);
    expect(decoder.consumed).toBe(end - start);
    start = end;
  }
  return bodyViewOf(decoder, output, code, start);
}

function bodyViewOf(
  decoder: ChunkedBodyDecoder,
  output: Uint8Array,
  code: number,
  consumed: number,
): BodyView {
  const outcome = outcomeOf(code, chunkedIncomplete, chunkedComplete);
  if (outcome !== "complete") return { outcome };
  const body = Buffer.from(output.subarray(0, decoder.decodedLength)).toString("latin1");
  return { outcome, body, consumed };
}

function expectSameBodyEveryWay(text: string, expected: BodyView, limits = chunkedLimits): void {
  expect({ text, view: decodeAtOnce(text, limits) }).toEqual({ text, view: expected });
  expect({ text, byteByByte: decodeInPieces(text, everyOffset(text.length), limits) }).toEqual({
    text,
    byteByByte: expected,
  });
  for (let split = 1; split < text.length; split++) {
    expect({ text, split, view: decodeInPieces(text, [split], limits) }).toEqual({
      text,
      split,
      view: expected,
    });
  }
}

const validBodies: ReadonlyArray<readonly [string, string, string, string?]> = [
  ["one chunk", "5\r\nhello\r\n0\r\n\r\n", "hello"],
  ["no data at all", "0\r\n\r\n", ""],
  [
    "extensions: token, token=value, quoted string with escapes, BWS before ;",
    '5;name=value\r\nhello\r\n6 ;q="a; \\"b\\""\r\n world\r\n0;last\r\n\r\n',
    "hello world",
  ],
  [
    "extensions: BWS around ; and =, several on one line, obs-text and \\ in a quoted string",
    '2 ; a = b\r\nhi\r\n1;c\t;\td="\xe9\\\\"\r\n!\r\n0 ;e= "f" ; g\r\n\r\n',
    "hi!",
  ],
  [
    "leading zeros and upper-case hex",
    "000A\r\n0123456789\r\n0b\r\nabcdefghijk\r\n000\r\n\r\n",
    "0123456789abcdefghijk",
  ],
  ["trailer fields", "3\r\nabc\r\n0\r\nX-Trailer: 1\r\nY:\t2 \r\n\r\n", "abc"],
  ["bytes that look like framing inside the data", "6\r\n0\r\n\r\n\n\r\n0\r\n\r\n", "0\r\n\r\n\n"],
  ["obs-text in data and trailer", "2\r\n\xe9\xff\r\n0\r\nX: \x80\r\n\r\n", "\xe9\xff"],
  [
    "a size of 16 digits, leading zeros (maxChunkSizeDigits)",
    `${"0".repeat(15)}5\r\nhello\r\n0\r\n\r\n`,
    "hello",
  ],
];

describe("ChunkedBodyDecoder accepts", () => {
  for (const [name, body, decoded] of validBodies) {
    test(`${name}, at once, byte by byte and split at every offset`, () => {
      expectSameBodyEveryWay(body, { outcome: "complete", body: decoded, consumed: body.length });
    });
  }

  test("stops at the end of the body and leaves a pipelined request unread", () => {
    const body = "1\r\na\r\n0\r\n\r\n";
    expectSameBodyEveryWay(`${body}GET / HTTP/1.1\r\n`, {
      outcome: "complete",
      body: "a",
      consumed: body.length,
    });
  });

  test("reset() makes a decoder reusable after an error", () => {
    const decoder = new ChunkedBodyDecoder();
    const output = new Uint8Array(chunkedLimits.maxBodyBytes);
    const bad = bytesOf("zz\r\n");
    const outcomes = [outcomeOf(decoder.decode(bad, 0, bad.length, output, chunkedLimits), 0, 1)];
    decoder.reset();
    const good = bytesOf("2\r\nok\r\n0\r\n\r\n");
    outcomes.push(outcomeOf(decoder.decode(good, 0, good.length, output, chunkedLimits), 0, 1));
    expect({ outcomes, decodedLength: decoder.decodedLength }).toEqual({
      outcomes: ["malformedChunkedBody", "complete"],
      decodedLength: 2,
    });
  });

  test("consumed counts from start, also when decoding fails", () => {
    const decoder = new ChunkedBodyDecoder();
    const input = bytesOf("GET 5\r\nhelloXX");
    const output = new Uint8Array(chunkedLimits.maxBodyBytes);
    const code = decoder.decode(input, 4, input.length, output, chunkedLimits);
    expect({ outcome: outcomeOf(code, 0, 1), consumed: decoder.consumed }).toEqual({
      outcome: "malformedChunkedBody",
      consumed: "5\r\nhello".length,
    });
  });
});

const invalidBodies: ReadonlyArray<readonly [string, string, EngineErrorName]> = [
  ["a non-hex size", "zz\r\n", "malformedChunkedBody"],
  ["no size", "\r\n", "malformedChunkedBody"],
  ["a space before the size", " 5\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["a 0x prefix", "0x5\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["junk after the size", "5xyz\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  [
    "whitespace after the size without an extension",
    "5 \r\nhello\r\n0\r\n\r\n",
    "malformedChunkedBody",
  ],
  ["a bare LF after the size", "5\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["a bare CR in an extension", "5;a\rb\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["NUL in an extension", "5;a\0\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["a ; with no extension name", "5;\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["a ; then whitespace and no name", "5; \r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["a ; and =value, no name", "5;=v\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["an empty extension between ;;", "5;a;;b\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["a non-token byte in a name", "5;a@b\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["an extension = with no value", "5;a=\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["two = in an extension", "5;a==b\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["whitespace inside a token value", "5;a=b c\r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["whitespace after the last extension", "5;a \r\nhello\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["an unbalanced quote", '5;a="b\r\nhello\r\n0\r\n\r\n', "malformedChunkedBody"],
  [
    "an escaped closing quote, left open",
    '5;a="b\\"\r\nhello\r\n0\r\n\r\n',
    "malformedChunkedBody",
  ],
  ["a quote inside a token value", '5;a=b"c\r\nhello\r\n0\r\n\r\n', "malformedChunkedBody"],
  ["text right after a quoted value", '5;a="b"c\r\nhello\r\n0\r\n\r\n', "malformedChunkedBody"],
  ["a quoted extension name", '5;"a"=b\r\nhello\r\n0\r\n\r\n', "malformedChunkedBody"],
  ["DEL in a quoted value", '5;a="\x7f"\r\nhello\r\n0\r\n\r\n', "malformedChunkedBody"],
  ["data longer than its size", "5\r\nhelloXX\r\n0\r\n\r\n", "malformedChunkedBody"],
  ["a bare LF after data", "5\r\nhello\n0\r\n\r\n", "malformedChunkedBody"],
  ["a size that overflows", "ffffffffffffffffff\r\n", "malformedChunkedBody"],
  ["a size of 17 digits, leading zeros", `${"0".repeat(16)}1\r\n`, "malformedChunkedBody"],
  ["NUL in a trailer", "0\r\nX: a\0\r\n\r\n", "malformedChunkedBody"],
  ["obs-fold in the trailer section", "0\r\nX: a\r\n b\r\n\r\n", "malformedChunkedBody"],
  ["a trailer line without a colon", "0\r\nX\r\n\r\n", "malformedChunkedBody"],
  ["a space before a trailer colon", "0\r\nX : a\r\n\r\n", "malformedChunkedBody"],
  ["an empty trailer name", "0\r\n: a\r\n\r\n", "malformedChunkedBody"],
  ["a bare LF in the trailer section", "0\r\nX: a\n\r\n", "malformedChunkedBody"],
  ["no final CRLF", "0\r\n\r\r", "malformedChunkedBody"],
  ["a chunk over maxBodyBytes (32)", "21\r\n", "bodyTooLarge"],
  ["chunks adding up over maxBodyBytes (32)", `20\r\n${"a".repeat(32)}\r\n1\r\n`, "bodyTooLarge"],
  [
    "a 17-byte extension (maxChunkExtensionBytes 16)",
    `1;${"e".repeat(16)}\r\n`,
    "chunkExtensionTooLong",
  ],
  [
    "a 33-byte trailer section (maxTrailerBytes 32)",
    `0\r\nX: ${"t".repeat(28)}\r\n\r\n`,
    "trailerSectionTooLarge",
  ],
];

describe("ChunkedBodyDecoder rejects, the same way however the bytes are split", () => {
  for (const [name, body, error] of invalidBodies) {
    test(`${name}: ${error}`, () => {
      expectSameBodyEveryWay(body, { outcome: error });
    });
  }
});

describe("ChunkedBodyDecoder limits (maxBodyBytes 32, maxChunkExtensionBytes 16, maxTrailerBytes 32)", () => {
  test("maxBodyBytes counts decoded data, not framing; it is checked at the size, before the data", () => {
    expect({
      atLimit: decodeAtOnce(`10\r\n${"a".repeat(16)}\r\n10\r\n${"b".repeat(16)}\r\n0\r\n\r\n`)
        .outcome,
      overLimit: decodeAtOnce(`10\r\n${"a".repeat(16)}\r\n11\r\n`).outcome,
    }).toEqual({ atLimit: "complete", overLimit: "bodyTooLarge" });
  });

  test("maxChunkExtensionBytes counts every byte between the size and its CR, per chunk line", () => {
    const extension = `;${"e".repeat(15)}`;
    expect(extension.length).toBe(16);
    expect({
      atLimitOnEachLine: decodeAtOnce(`1${extension}\r\na\r\n0${extension}\r\n\r\n`).outcome,
      withBws: decodeAtOnce(`1 ;${"e".repeat(14)}\r\na\r\n0\r\n\r\n`).outcome,
      overLimit: decodeAtOnce(`1${extension}e\r\na\r\n0\r\n\r\n`).outcome,
    }).toEqual({
      atLimitOnEachLine: "complete",
      withBws: "complete",
      overLimit: "chunkExtensionTooLong",
    });
  });

  test("maxTrailerBytes counts trailer field lines with their CRLFs, not the final CRLF", () => {
    const trailerSection = `X: ${"t".repeat(10)}\r\nY: ${"t".repeat(12)}\r\n`;
    expect(trailerSection.length).toBe(32);
    expect({
      atLimit: decodeAtOnce(`0\r\n${trailerSection}\r\n`).outcome,
      overLimit: decodeAtOnce(`0\r\n${trailerSection.replace("X:", "XX:")}\r\n`).outcome,
    }).toEqual({ atLimit: "complete", overLimit: "trailerSectionTooLarge" });
  });
});

test("scanAuthority ends where RFC 3986's authority does, on random hosts and ports", () => {
  // The grammar read plainly, a byte at a time: an IP literal's bytes up to "]", or reg-name
  // bytes and "%" escapes up to "/", "?" or ":", then ":" and digits. -1 where it is invalid.
  const hostByte = (byte: number) => /[A-Za-z0-9\-._~!$&'()*+,;=:]/.test(String.fromCharCode(byte));
  const hex = (byte: number) => /[0-9A-Fa-f]/.test(String.fromCharCode(byte));
  const reference = (bytes: Uint8Array): number => {
    let index = 0;
    if (bytes[0] === 0x5b) {
      index = 1;
      while (index < bytes.length && bytes[index] !== 0x5d) {
        if (!hostByte(bytes[index]!)) return -1;
        index++;
      }
      if (index >= bytes.length || index === 1) return -1;
      index++;
    } else {
      while (index < bytes.length) {
        const byte = bytes[index]!;
        if (byte === 0x2f || byte === 0x3f || byte === 0x3a) break;
        if (byte === 0x25) {
          if (index + 2 >= bytes.length || !hex(bytes[index + 1]!) || !hex(bytes[index + 2]!)) {
            return -1;
          }
          index += 3;
        } else if (hostByte(byte)) index++;
        else return -1;
      }
      if (index === 0) return -1;
    }
    if (index < bytes.length && bytes[index] === 0x3a) {
      index++;
      while (index < bytes.length && bytes[index]! >= 0x30 && bytes[index]! <= 0x39) index++;
    }
    return index;
  };
  const pieces = ["a", "Z", "7", ".", "-", "_", "~", "!", "%", "%4", "%4a", "%zz", ":", ":80", "/"];
  const more = ["?", "[", "]", "@", " ", "\u00e9", "\u0000", "::1", "#", "\\", "xn--p1ai", "127"];
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...pieces, ...more), { maxLength: 12 }), (parts) => {
      const bytes = new Uint8Array(Buffer.from(parts.join(""), "latin1"));
      const filler = 3;
      const buffer = new Uint8Array(filler + bytes.length);
      buffer.set(bytes, filler);
      const head = new ParsedHead(8);
      head.reset(buffer, filler);
      const expected = reference(bytes);
      const scanned = scanAuthority(head, 0, bytes.length);
      expect(scanned < 0 ? -1 : scanned).toBe(expected);
    }),
    { numRuns: 20_000, seed: 20261130 },
  );
});
