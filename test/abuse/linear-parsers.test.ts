import { describe, expect, test } from "bun:test";
import { parseCookieHeader } from "../../src/cookies/cookie-header.ts";
import { negotiate, parseAccept } from "../../src/negotiation/accept.ts";
import { parseMediaRange, splitListMembers } from "../../src/negotiation/media-range.ts";
import { formDecodeInto, percentDecodeInto } from "../../src/params/codecs.ts";
import { ParameterRecords } from "../../src/params/parameter-records.ts";
import { MultipartError, parseMultipart } from "../../src/request/multipart.ts";
import { Router } from "../../src/router/router.ts";
import { decodeSessionToken } from "../../src/sessions/session-token.ts";
import { parseLastEventId } from "../../src/sse/last-event-id.ts";
import { expectLinear, filled, latin1Bytes, linearCase } from "./support/linear-work.ts";

// Issue "No client can deny service to other clients", point 3: every parser request bytes
// reach is linear in its input. Each case is the worst input found for one parser: long runs of
// spaces, tabs, separators, quotes and backslashes, unbalanced quotes, many empty members.

const isEmpty = (result: unknown) => expect(result).toEqual([]);
const isUndefined = (result: unknown) => expect(result).toBeUndefined();

describe("Accept and other lists (RFC 9110 §5.6.1, §12.5.1)", () => {
  const offered = ["application/json", "text/html; charset=utf-8"];
  test.each([
    linearCase({
      name: "a long inner run of spaces",
      build: (bytes) => filled(bytes, "text/html", " ", "x"),
      run: parseAccept,
      check: isEmpty,
    }),
    linearCase({
      name: "a long inner run of tabs and spaces",
      build: (bytes) => filled(bytes, "a", " \t", "b/c"),
      run: parseAccept,
      check: isEmpty,
    }),
    linearCase({
      name: "only commas",
      build: (bytes) => ",".repeat(bytes),
      run: parseAccept,
      check: isEmpty,
    }),
    linearCase({
      name: "empty members between spaces",
      build: (bytes) => filled(bytes, "", " , "),
      run: parseAccept,
      check: isEmpty,
    }),
    linearCase({
      name: "many members",
      build: (bytes) => filled(bytes, "", "a/b,"),
      run: (header: string) => parseAccept(header).length,
      check: (count) => expect(count).toBeGreaterThan(200),
    }),
    linearCase({
      name: "empty parameters with spaces, then a bad byte",
      build: (bytes) => filled(bytes, "a/b", ";  ", "@"),
      run: parseAccept,
      check: isEmpty,
    }),
    linearCase({
      name: "an unbalanced quote before many commas",
      build: (bytes) => filled(bytes, 'a/b;x="', ","),
      run: parseAccept,
      check: isEmpty,
    }),
    linearCase({
      name: "only quotes",
      build: (bytes) => '"'.repeat(bytes),
      run: splitListMembers,
      check: (members) => expect(members).toHaveLength(1),
    }),
    linearCase({
      name: "escaped quotes in a quoted value, unterminated",
      build: (bytes) => filled(bytes, 'a/b;x="', '\\"'),
      run: parseAccept,
      check: isEmpty,
    }),
    linearCase({
      name: "backslashes in a quoted value",
      build: (bytes) => filled(bytes, 'a/b;x="', "\\\\", '"'),
      run: (header: string) => parseAccept(header)[0]?.parameters.x?.length,
      check: (length) => expect(length).toBeGreaterThan(400),
    }),
    linearCase({
      name: "many parameters after q",
      build: (bytes) => filled(bytes, "a/b;q=0.5", ";e=1", "@"),
      run: parseAccept,
      check: isEmpty,
    }),
    linearCase({
      name: "a long q value",
      build: (bytes) => filled(bytes, "a/b;q=0.", "0"),
      run: parseMediaRange,
      check: isUndefined,
    }),
    linearCase({
      name: "equals signs",
      build: (bytes) => filled(bytes, "a/b;", "="),
      run: parseMediaRange,
      check: isUndefined,
    }),
    linearCase({
      name: "negotiate over spaces and commas",
      build: (bytes) => filled(bytes, "text/html;q=0.1,", " , \t", "application/json"),
      run: (header: string) => negotiate(header, offered),
      check: (chosen) => expect(chosen).toBe("application/json"),
    }),
  ])("$name", (testCase) => expectLinear(testCase));
});

describe("Cookie (RFC 6265 §4.2.1)", () => {
  test.each([
    linearCase({
      name: "semicolons",
      build: (b) => ";".repeat(b),
      run: parseCookieHeader,
      check: isEmpty,
    }),
    linearCase({
      name: "spaces inside a value",
      build: (bytes) => filled(bytes, "a=x", " ", "y"),
      run: parseCookieHeader,
      check: (entries) => expect(entries).toHaveLength(1),
    }),
    linearCase({
      name: "a long name with spaces and no =",
      build: (bytes) => filled(bytes, "a", " \t"),
      run: parseCookieHeader,
      check: isEmpty,
    }),
    linearCase({
      name: "empty pairs",
      build: (bytes) => filled(bytes, "", "a=;"),
      run: (header: string) => parseCookieHeader(header).length,
      check: (count) => expect(count).toBeGreaterThan(300),
    }),
    linearCase({
      name: "pieces without = before one pair",
      build: (bytes) => filled(bytes, "", "a;", "b=1"),
      run: parseCookieHeader,
      check: (entries) => expect(entries).toEqual([{ name: "b", value: "1" }]),
    }),
    linearCase({
      name: "quotes",
      build: (bytes) => filled(bytes, "a=", '"'),
      run: parseCookieHeader,
      check: (entries) => expect(entries).toHaveLength(1),
    }),
    linearCase({
      name: "equals signs",
      build: (bytes) => "=".repeat(bytes),
      run: parseCookieHeader,
      check: isEmpty,
    }),
    linearCase({
      name: "a long token name with a bad last byte",
      build: (bytes) => filled(bytes, "", "a", "@=1"),
      run: parseCookieHeader,
      check: isEmpty,
    }),
  ])("$name", (testCase) => expectLinear(testCase));
});

describe("query and form (WHATWG URL §5.1)", () => {
  const everyMember = (raw: string) => {
    const records = ParameterRecords.parse(raw);
    let seen = 0;
    for (const _entry of records) seen++;
    return [records.length, seen, records.firstRaw("zz"), records.allRaw("zz").length];
  };
  test.each([
    linearCase({ name: "ampersands", build: (b) => "&".repeat(b), run: everyMember }),
    linearCase({ name: "equals signs", build: (b) => "=".repeat(b), run: everyMember }),
    linearCase({ name: "names without =", build: (b) => filled(b, "", "a&"), run: everyMember }),
    linearCase({ name: "empty values", build: (b) => filled(b, "", "a=&"), run: everyMember }),
    linearCase({
      name: "names without = before one pair",
      build: (b) => filled(b, "", "a&", "b=1"),
      run: everyMember,
    }),
    linearCase({ name: "one long name", build: (b) => filled(b, "", "z", "=1"), run: everyMember }),
    linearCase({
      name: "firstRaw of a name every entry starts with",
      build: (bytes) => filled(bytes, "", "zz&"),
      run: (raw: string) => ParameterRecords.parse(raw).firstRaw("zzz"),
      check: isUndefined,
    }),
    linearCase({
      name: "percent escapes",
      build: (bytes) => filled(bytes, "", "%41"),
      run: (raw: string) => percentDecodeInto(raw, new Uint8Array(raw.length)).length,
    }),
    linearCase({
      name: "plus signs",
      build: (bytes) => "+".repeat(bytes),
      run: (raw: string) => formDecodeInto(raw, new Uint8Array(raw.length)).length,
    }),
  ])("$name", (testCase) => expectLinear(testCase));
});

describe("multipart/form-data (RFC 7578)", () => {
  const limits = { maxParts: 1_000_000, maxPartHeaderBytes: 1_000_000 };
  const rejects = (body: Uint8Array, contentType: string) => {
    try {
      parseMultipart(body, contentType, limits);
      return "accepted";
    } catch (error) {
      return error instanceof MultipartError ? error.reason : error;
    }
  };
  const empty = latin1Bytes("--b--\r\n");
  const part = (headerValue: string) =>
    latin1Bytes(`--b\r\nContent-Disposition: ${headerValue}\r\n\r\nx\r\n--b--\r\n`);
  test.each([
    linearCase({
      name: "Content-Type: a long inner run of spaces",
      build: (bytes) => filled(bytes, "multipart/form-data", " ", "x; boundary=b"),
      run: (contentType: string) => rejects(empty, contentType),
      check: (reason) => expect(reason).toBe("unsupportedMediaType"),
    }),
    linearCase({
      name: "Content-Type: semicolons and spaces",
      build: (bytes) => filled(bytes, "multipart/form-data", "; ", "boundary=b"),
      run: (contentType: string) => rejects(empty, contentType),
      check: (reason) => expect(reason).toBe("accepted"),
    }),
    linearCase({
      name: "Content-Type: escaped backslashes in the boundary",
      build: (bytes) => filled(bytes, 'multipart/form-data; boundary="', "\\\\", '"'),
      run: (contentType: string) => rejects(empty, contentType),
      check: (reason) => expect(reason).toBe("invalidBoundary"),
    }),
    linearCase({
      name: "many tiny parts",
      build: (bytes) =>
        latin1Bytes(
          filled(bytes, "", '--b\r\ncontent-disposition:form-data;name="a"\r\n\r\n\r\n', "--b--"),
        ),
      run: (body: Uint8Array) =>
        parseMultipart(body, "multipart/form-data; boundary=b", limits).length,
    }),
    linearCase({
      name: "a preamble of near delimiters",
      build: (bytes) => latin1Bytes(filled(bytes, "", "\r\n--", "\r\n--b--")),
      run: (body: Uint8Array) => rejects(body, "multipart/form-data; boundary=b"),
      check: (reason) => expect(reason).toBe("accepted"),
    }),
    linearCase({
      name: "transport padding after a delimiter",
      build: (bytes) => latin1Bytes(filled(bytes, "--b", " \t", "x")),
      run: (body: Uint8Array) => rejects(body, "multipart/form-data; boundary=b"),
      check: (reason) => expect(reason).toBe("malformedDelimiter"),
    }),
    linearCase({
      name: "a part header value of spaces",
      build: (bytes) => filled(bytes, "form-data", " ", '; name="a"'),
      run: (value: string) => rejects(part(value), "multipart/form-data; boundary=b"),
      check: (reason) => expect(reason).toBe("accepted"),
    }),
    linearCase({
      name: "a quoted name of escaped quotes",
      build: (bytes) => filled(bytes, 'form-data; name="', '\\"', '"'),
      run: (value: string) => rejects(part(value), "multipart/form-data; boundary=b"),
      check: (reason) => expect(reason).toBe("accepted"),
    }),
  ])("$name", (testCase) => expectLinear(testCase));
});

describe("single-value fields", () => {
  test.each([
    linearCase({
      name: "Last-Event-ID: many digits",
      build: (bytes) => "1".repeat(bytes),
      run: parseLastEventId,
      check: isUndefined,
    }),
    linearCase({
      name: "Last-Event-ID: leading zeros",
      build: (bytes) => "0".repeat(bytes),
      run: parseLastEventId,
      check: isUndefined,
    }),
    linearCase({
      name: "session token: a long base64url text",
      build: (bytes) => "A".repeat(bytes),
      run: decodeSessionToken,
      check: isUndefined,
    }),
  ])("$name", (testCase) => expectLinear(testCase));
});

describe("router (paths are still percent-encoded)", () => {
  const router = new Router<string>();
  router.add("GET", "/items/:id", "item");
  router.add("GET", "/files/*rest", "files");
  const kindOf = (path: string) => router.find("GET", path).kind;
  test.each([
    linearCase({
      name: "many empty segments",
      build: (bytes) => filled(bytes, "/items", "/"),
      run: kindOf,
      check: (kind) => expect(kind).toBe("notFound"),
    }),
    linearCase({
      name: "a rest of escaped segments",
      build: (bytes) => filled(bytes, "/files", "/%41"),
      run: kindOf,
      check: (kind) => expect(kind).toBe("found"),
    }),
  ])("$name", (testCase) => expectLinear(testCase));
});
