// Seeded random mutation of valid requests. Over TCP: the engine never throws, every connection
// gets a well-formed answer (a deadline answers incomplete ones), and it still serves afterwards.
// On the pure parsers: one parse at once and the same bytes fed in random pieces agree.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { expect, test } from "bun:test";
import { errorNameOf } from "../src/errors.ts";
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
import { RawClient, sendInPieces } from "./support/raw-client.ts";
import { caseSeed, masterSeed, SeededRandom } from "./support/seeded-random.ts";
import { echoHandler, startServer } from "./support/test-server.ts";

class Mutator extends SeededRandom {
  /** Applies 0-4 byte-level mutations (none in about one case of twelve). */
  mutate(source: Uint8Array): Uint8Array {
    const bytes = Array.from(source);
    const count = this.below(12) === 0 ? 0 : 1 + this.below(4);
    for (let round = 0; round < count; round++) {
      const at = this.below(bytes.length + 1);
      switch (this.below(7)) {
        case 0:
          if (at < bytes.length) bytes[at] = this.below(256);
          break;
        case 1:
          if (at < bytes.length) bytes[at]! ^= 1 << this.below(8);
          break;
        case 2:
          bytes.splice(at, 0, this.pick([0x0d, 0x0a, 0x00, 0x20, 0x09, 0x80, 0xff, 0x3a, 0x3b]));
          break;
        case 3:
          bytes.splice(at, 0, 0x0d, 0x0a);
          break;
        case 4:
          bytes.splice(at, 1 + this.below(4));
          break;
        case 5: {
          const start = this.below(bytes.length);
          bytes.splice(at, 0, ...bytes.slice(start, start + 1 + this.below(64)));
          break;
        }
        default:
          bytes.length = Math.max(1, Math.min(bytes.length, at));
      }
    }
    if (bytes.length === 0) bytes.push(0x0d);
    return new Uint8Array(bytes);
  }
}

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const asText = (bytes: Uint8Array) => JSON.stringify(Buffer.from(bytes).toString("latin1"));

const requestSeeds = [
  "GET /a/b?x=1&y=%20 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nX-Obs: caf\xe9\r\n\r\n",
  "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\nContent-Type: text/plain\r\n\r\nhello world",
  "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" +
    '5;e=1\r\nhello\r\n6;q="x"\r\n world\r\n0\r\nX-T: 1\r\n\r\n',
  "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
  "GET /dir/[id]|^?files[]=x&q={a}|^` HTTP/1.1\r\nHost: h\r\n\r\n",
  "GET http://example.com:8080/p?q HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
  "GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
  "PUT /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nbody",
  "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
  "DELETE /x HTTP/1.1\r\nHost: [::1]:80\r\nConnection: close\r\n\r\n",
  // Close to the limits below: mutations push them over one limit or another.
  `GET /${"r".repeat(48)} HTTP/1.1\r\nHost: h\r\nX-Long: ${"v".repeat(160)}\r\n\r\n`,
  `PATCH /p HTTP/1.1\r\nHost: h\r\n${"X: y\r\n".repeat(6)}Content-Length: 60\r\n\r\n${"b".repeat(60)}`,
].map(latin1);

// ---- over TCP -----------------------------------------------------------------------------------

const serverCases = 3000;
const parallelConnections = 32;
/** Statuses the engine may answer here; a 500 or 503 would mean a crash or a leak. */
const expectedStatuses = new Set([100, 200, 400, 408, 413, 414, 417, 431, 501, 505]);

interface Failure {
  readonly seed: number;
  readonly problem: string;
  readonly sent: string;
  readonly received: string;
}

test(`${serverCases} mutated requests over TCP: always a well-formed answer, then still serving (seed ${masterSeed})`, async () => {
  const uncaught: string[] = [];
  const onUncaught = (error: unknown) => uncaught.push(String(error));
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUncaught);
  try {
    await using server = startServer(echoHandler, {
      maxConnections: 256,
      workers: 8,
      maxRequestLineBytes: 64,
      maxHeaderBytes: 256,
      maxHeaderCount: 8,
      maxBodyBytes: 64,
      maxChunkExtensionBytes: 16,
      maxTrailerBytes: 32,
      // Incomplete requests are answered 408 quickly instead of hanging the run.
      headerDeadlineMs: 100,
      bodyDeadlineMs: 100,
      sweepIntervalMs: 10,
    });
    const failures: Failure[] = [];
    const statuses = new Map<number, number>();

    const runCase = async (index: number) => {
      const seed = caseSeed("tcp", index);
      const mutator = new Mutator(seed);
      const sent = mutator.mutate(mutator.pick(requestSeeds));
      const fail = (problem: string, received: string) =>
        failures.push({ seed, problem, sent: asText(sent), received: JSON.stringify(received) });
      using client = await RawClient.connect(server.port);
      await sendInPieces((piece) => client.send(piece), sent, mutator.cuts(sent.length));
      try {
        await client.waitFor(
          () => client.closed || client.receivedText.includes("\r\n\r\n"),
          "an answer or the close",
          3000,
        );
      } catch {
        fail("neither an answer nor the close", client.receivedText);
        return;
      }
      const text = client.receivedText;
      const match = /^HTTP\/1\.1 ([1-5]\d\d) [^\r\n]*\r\n/.exec(text);
      if (match === null) {
        fail(text === "" ? "closed without an answer" : "a malformed status line", text);
        return;
      }
      const status = Number(match[1]);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (!expectedStatuses.has(status)) fail(`an unexpected status ${status}`, text);
      if (/\r\nConnection: close\r\n/i.test(text.slice(0, text.indexOf("\r\n\r\n") + 2))) {
        try {
          await client.waitForClose(3000);
        } catch {
          fail("Connection: close but the connection stayed open", text);
        }
      }
    };

    let next = 0;
    const lane = async () => {
      while (next < serverCases) await runCase(next++);
    };
    await Promise.all(Array.from({ length: parallelConnections }, lane));

    // Every slot and worker comes back once the clients are gone (error answers linger ~1 s).
    const settled = () => {
      const stats = server.stats();
      return stats.connectionsOpen === 0 && stats.workersBusy === 0 && stats.queuedRequests === 0;
    };
    const deadline = performance.now() + 5000;
    while (!settled() && performance.now() < deadline) await Bun.sleep(10);
    const stats = server.stats();

    using client = await RawClient.connect(server.port);
    client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    const after = await client.response();

    expect({
      seed: masterSeed,
      failures: failures.slice(0, 5),
      failureCount: failures.length,
      uncaught,
      handlerFailures: stats.handlerFailures,
      settled: {
        connectionsOpen: stats.connectionsOpen,
        workersBusy: stats.workersBusy,
        queuedRequests: stats.queuedRequests,
      },
      // The mutations reach acceptance, rejection and the header deadline alike.
      reached: [200, 400, 408].map((status) => (statuses.get(status) ?? 0) > 0),
      after: after.statusLine,
    }).toEqual({
      seed: masterSeed,
      failures: [],
      failureCount: 0,
      uncaught: [],
      handlerFailures: 0,
      settled: { connectionsOpen: 0, workersBusy: 0, queuedRequests: 0 },
      reached: [true, true, true],
      after: "HTTP/1.1 200 OK",
    });
  } finally {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
  }
}, 30_000);

// ---- the pure parsers: at once and in pieces agree -------------------------------------------------

const pureCases = 10_000;

/** Every field of a parse, so that two parses of the same bytes can be compared whole. */
function headFingerprint(head: ParsedHead, code: number) {
  if (code === headIncomplete) return { outcome: "incomplete" };
  if (code !== headComplete) return { outcome: errorNameOf(code) };
  return {
    outcome: "complete",
    headEnd: head.headEnd,
    method: [head.methodStart, head.methodEnd],
    target: [head.targetStart, head.targetEnd, head.pathStart, head.pathEnd],
    versionMinor: head.versionMinor,
    headers: Array.from({ length: head.headerCount * 4 }, (_, at) =>
      head.fieldOffset(at >> 2, at & 3),
    ),
    framing: [head.contentLength, head.chunked, head.keepAlive, head.expectContinue],
  };
}

/** Limits drawn per case, so that the limits cross the seeds at every place and in every order. */
function randomHeadLimits(mutator: Mutator): HeadLimits {
  const maxRequestLineBytes = 16 + mutator.below(80);
  return {
    maxRequestLineBytes,
    maxHeaderBytes: maxRequestLineBytes + mutator.below(300),
    maxHeaderCount: 1 + mutator.below(10),
    maxBodyBytes: mutator.below(100),
  };
}

function parseHead(bytes: Uint8Array, cuts: readonly number[], headLimits: HeadLimits) {
  // Bytes not revealed yet are LF, so a parser that looked past `end` would differ.
  const buffer = new Uint8Array(bytes.length).fill(0x0a);
  const head = new ParsedHead(headLimits.maxHeaderCount);
  head.reset(buffer, 0);
  let revealed = 0;
  let code = headIncomplete;
  for (const end of [...cuts, bytes.length]) {
    buffer.set(bytes.subarray(revealed, end), revealed);
    revealed = end;
    code = parseRequestHead(head, end, headLimits);
    if (code !== headIncomplete) break;
  }
  return headFingerprint(head, code);
}

test(`${pureCases} mutated heads: parsed at once, in random pieces and byte by byte alike (seed ${masterSeed})`, () => {
  const mismatches: unknown[] = [];
  for (let index = 0; index < pureCases; index++) {
    const seed = caseSeed("head", index);
    const mutator = new Mutator(seed);
    const limits = randomHeadLimits(mutator);
    const bytes = mutator.mutate(mutator.pick(requestSeeds));
    const atOnce = parseHead(bytes, [], limits);
    const inPieces = parseHead(bytes, mutator.cuts(bytes.length), limits);
    const everyByte = Array.from({ length: bytes.length }, (_, at) => at + 1);
    const byteByByte = parseHead(bytes, everyByte, limits);
    if (!Bun.deepEquals(atOnce, inPieces) || !Bun.deepEquals(atOnce, byteByByte)) {
      mismatches.push({ seed, limits, bytes: asText(bytes), atOnce, inPieces, byteByByte });
    }
  }
  expectNoMismatches(masterSeed, mismatches);
});

const bodySeeds = [
  '5;name=value\r\nhello\r\n6;q="a; \\"b\\""\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n',
  "000A\r\n0123456789\r\n0B\r\nabcdefghijk\r\n000;end\r\n\r\nGET / HTTP/1.1\r\n",
  "1\r\na\r\n1\r\nb\r\n0\r\n\r\n",
].map(latin1);

function randomChunkedLimits(mutator: Mutator): ChunkedLimits {
  return {
    maxBodyBytes: mutator.below(80),
    maxChunkExtensionBytes: mutator.below(32),
    maxTrailerBytes: mutator.below(48),
  };
}

function decodeBody(bytes: Uint8Array, cuts: readonly number[], chunkedLimits: ChunkedLimits) {
  const decoder = new ChunkedBodyDecoder();
  const output = new Uint8Array(chunkedLimits.maxBodyBytes);
  let start = 0;
  for (const end of [...cuts, bytes.length]) {
    const code = decoder.decode(bytes, start, end, output, chunkedLimits);
    if (code !== chunkedIncomplete) {
      const body = asText(output.subarray(0, decoder.decodedLength));
      if (code !== chunkedComplete)
        return { outcome: errorNameOf(code), at: start + decoder.consumed };
      return { outcome: "complete", body, consumed: start + decoder.consumed };
    }
    start = end;
  }
  return { outcome: "incomplete", decodedLength: decoder.decodedLength };
}

test(`${pureCases} mutated chunked bodies: decoded at once, in random pieces and byte by byte alike (seed ${masterSeed})`, () => {
  const mismatches: unknown[] = [];
  for (let index = 0; index < pureCases; index++) {
    const seed = caseSeed("chunked", index);
    const mutator = new Mutator(seed);
    const limits = randomChunkedLimits(mutator);
    const bytes = mutator.mutate(mutator.pick(bodySeeds));
    const atOnce = decodeBody(bytes, [], limits);
    const inPieces = decodeBody(bytes, mutator.cuts(bytes.length), limits);
    const everyByte = Array.from({ length: bytes.length - 1 }, (_, at) => at + 1);
    const byteByByte = decodeBody(bytes, everyByte, limits);
    if (!Bun.deepEquals(atOnce, inPieces) || !Bun.deepEquals(atOnce, byteByByte)) {
      mismatches.push({ seed, limits, bytes: asText(bytes), atOnce, inPieces, byteByByte });
    }
  }
  expectNoMismatches(masterSeed, mismatches);
});

/** Fails with the seed and the first few disagreeing cases when any parse disagreed. */
function expectNoMismatches(seed: number, mismatches: readonly unknown[]): void {
  expect({ seed, mismatches: mismatches.slice(0, 3), count: mismatches.length }).toEqual({
    seed,
    mismatches: [],
    count: 0,
  });
}
