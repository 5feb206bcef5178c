// Seeded random request heads built from the fields that decide framing and the connection's
// fate (Host, Content-Length, Transfer-Encoding, Connection, Expect) with valid and invalid
// values, repeated, in any order, on HTTP/1.1 and 1.0, parsed at once and in random pieces, and
// checked against a model written from RFC 9112 §3.2 and §6 and RFC 9110 §8.6, §10.1.1: what the
// body's framing is (length, chunked), whether the connection closes or expects a 100, or which
// error answers it. The smuggling cases live here: a length and a chunked coding together, two
// lengths, chunked twice or not last, a coding the engine cannot decode.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { test } from "bun:test";
import { type EngineErrorName, errorNameOf } from "../src/errors.ts";
import { ParsedHead } from "../src/parser/parsed-head.ts";
import { type HeadLimits, headIncomplete, parseRequestHead } from "../src/parser/request-head.ts";
import { caseSeed, expectNoMismatches, masterSeed, SeededRandom } from "./support/seeded-random.ts";

const cases = 3000;
const limits: HeadLimits = {
  maxRequestLineBytes: 1024,
  maxHeaderBytes: 8192,
  maxHeaderCount: 32,
  maxBodyBytes: 1000,
};

const values: Record<string, readonly string[]> = {
  Host: ["h", "example.com:8080", "", "a b", "u@h"],
  "Content-Length": [
    "0",
    "5",
    "007",
    "1000",
    "1001",
    "99999999999999999999",
    "5, 5",
    "+5",
    "-1",
    "",
    "5 5",
    "1e3",
    "0x5",
    "５",
  ],
  "Transfer-Encoding": [
    "chunked",
    "Chunked",
    "CHUNKED",
    "gzip",
    "gzip, chunked",
    "chunked, gzip",
    "chunked, chunked",
    ", chunked",
    "chunked ,",
    "",
    "identity",
    "chunked;x=1",
    "chunked\t",
    "x-custom, chunked",
  ],
  Connection: ["close", "keep-alive", "Keep-Alive, close", "upgrade", "", "CLOSE", ", close ,"],
  Expect: ["100-continue", "100-CONTINUE", "", "foo", "100-continue, foo", " , 100-continue"],
};
const names = Object.keys(values);

type Outcome =
  | { readonly error: EngineErrorName }
  | {
      readonly contentLength: number;
      readonly chunked: boolean;
      readonly close: boolean;
      readonly keepAlive: boolean;
      readonly expectContinue: boolean;
    };

/** The non-empty elements of a list value (RFC 9110 §5.6.1), trimmed, lower-cased. */
function elements(value: string): string[] {
  return value
    .split(",")
    .map((element) => element.trim().toLowerCase())
    .filter((element) => element !== "");
}

/** What the model says of a head with `fields` (in order) on HTTP/1.`minor`. */
function model(minor: number, fields: ReadonlyArray<readonly [string, string]>): Outcome {
  let hosts = 0;
  let contentLength = -1;
  let transferEncoding = false;
  let chunked = false;
  let close = false;
  let keepAlive = false;
  let expectContinue = false;
  for (const [name, raw] of fields) {
    // OWS around a field value is not part of it (RFC 9112 §5).
    const value = raw.trim();
    if (name === "Host") {
      if (++hosts > 1) return { error: "malformedRequest" };
      if (value !== "" && !/^[a-z0-9.]+(:[0-9]*)?$/i.test(value))
        return { error: "malformedRequest" };
    } else if (name === "Content-Length") {
      if (!/^[0-9]+$/.test(value)) return { error: "malformedRequest" };
      const length = Number(value);
      if (!Number.isSafeInteger(length)) return { error: "bodyTooLarge" };
      if (contentLength >= 0 && contentLength !== length) return { error: "malformedRequest" };
      contentLength = length;
      if (length > limits.maxBodyBytes) return { error: "bodyTooLarge" };
    } else if (name === "Transfer-Encoding") {
      transferEncoding = true;
      for (const coding of elements(value)) {
        // Chunked must be the last coding, applied once (RFC 9112 §6.1).
        if (chunked) return { error: "malformedRequest" };
        if (coding !== "chunked") return { error: "unsupportedTransferCoding" };
        chunked = true;
      }
    } else if (name === "Connection") {
      for (const option of elements(value)) {
        if (option === "close") close = true;
        if (option === "keep-alive") keepAlive = true;
      }
    } else if (name === "Expect" && minor === 1) {
      for (const expectation of elements(value)) {
        if (expectation !== "100-continue") return { error: "unsupportedExpectation" };
        expectContinue = true;
      }
    }
  }
  if (minor === 1 && hosts === 0) return { error: "malformedRequest" };
  // Transfer-Encoding on 1.0, beside a length, or not ending in chunked (RFC 9112 §6.1, §6.3).
  if (transferEncoding && (minor === 0 || contentLength >= 0 || !chunked)) {
    return { error: "malformedRequest" };
  }
  return { contentLength, chunked, close, keepAlive, expectContinue };
}

function parse(bytes: Uint8Array, cuts: readonly number[]): Outcome | "incomplete" {
  const buffer = new Uint8Array(bytes.length);
  const head = new ParsedHead(limits.maxHeaderCount);
  head.reset(buffer, 0);
  let revealed = 0;
  for (const end of [...cuts, bytes.length]) {
    buffer.set(bytes.subarray(revealed, end), revealed);
    revealed = end;
    const code = parseRequestHead(head, end, limits);
    if (code === headIncomplete) continue;
    if (code !== 1) return { error: errorNameOf(code) };
    return {
      contentLength: head.contentLength,
      chunked: head.chunked,
      close: head.connectionClose,
      keepAlive: head.connectionKeepAlive,
      expectContinue: head.expectContinue,
    };
  }
  return "incomplete";
}

test(`${cases} random framing heads: the parser's framing, connection and errors are the model's, at once and in pieces (seed ${masterSeed})`, () => {
  const mismatches: unknown[] = [];
  for (let index = 0; index < cases; index++) {
    const seed = caseSeed("framing", index);
    const random = new SeededRandom(seed);
    const minor = random.oneIn(6) ? 0 : 1;
    const fields: Array<readonly [string, string]> = [];
    if (!random.oneIn(10)) fields.push(["Host", "h"]);
    for (let count = random.between(0, 4); count > 0; count--) {
      const name = random.pick(names);
      const value = random.pick(values[name]!);
      // OWS before and after the value, as clients may send it.
      const before = random.oneIn(4) ? " \t" : random.oneIn(2) ? " " : "";
      const padded = `${before}${value}${random.oneIn(5) ? " " : ""}`;
      fields.splice(random.below(fields.length + 1), 0, [name, padded]);
    }
    const method = random.pick(["GET", "POST", "PUT"]);
    const text =
      `${method} / HTTP/1.${minor}\r\n` +
      fields
        .map(([name, value]) => `${random.oneIn(3) ? name.toLowerCase() : name}:${value}\r\n`)
        .join("") +
      "\r\n";
    const bytes = new Uint8Array(Buffer.from(text, "utf8"));
    const want = model(minor, fields);
    const atOnce = parse(bytes, []);
    const inPieces = parse(bytes, random.cuts(bytes.length, 6));
    if (!Bun.deepEquals(atOnce, want) || !Bun.deepEquals(inPieces, want)) {
      mismatches.push({ seed, head: text, want, atOnce, inPieces });
    }
  }
  expectNoMismatches(mismatches);
});
