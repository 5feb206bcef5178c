// Seeded random pipelines over TCP: each connection sends a random run of requests (bodies by
// length and chunked, answers staged, borrowed, streamed, after a wait off the worker, empty,
// closing), split into random writes, and reads late or at once. Every answer that arrives must
// be complete, correct and in order; the only answers allowed to be missing are those after a
// closing one, or unread requests the engine dropped (counted) before it closed the connection.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { expect, test } from "bun:test";
import type { Exchange } from "../index.ts";
import { parseResponses, RawClient, sendInPieces } from "./support/raw-client.ts";
import { caseSeed, masterSeed, SeededRandom } from "./support/seeded-random.ts";
import { startServer } from "./support/test-server.ts";

const cases = 200;
const parallelConnections = 12;
const kinds = ["text", "bytes", "borrow", "stream", "wait", "echo", "empty", "close"] as const;
type Kind = (typeof kinds)[number];

/** Byte `index` of an answer of tag `tag`: a letter, so text and bytes answers share it. */
function patternByte(index: number, tag: number): number {
  return 97 + ((index + tag) % 26);
}

function pattern(length: number, tag: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let index = 0; index < length; index++) bytes[index] = patternByte(index, tag);
  return bytes;
}

/** The largest borrowed answer, made once; each borrowed answer is a prefix of one of 26. */
const borrowedMaxBytes = 3 << 20;
const borrowed = Array.from({ length: 26 }, (_, tag) => pattern(borrowedMaxBytes, tag));

async function answer(exchange: Exchange): Promise<void> {
  const [, , kind, lengthText, tagText] = exchange.path.split("/") as [
    string,
    string,
    Kind,
    string,
    string,
  ];
  const length = Number(lengthText);
  const tag = Number(tagText) % 26;
  exchange.setHeader("Content-Type", "application/octet-stream");
  switch (kind) {
    case "text":
      exchange.writeText(Buffer.from(pattern(length, tag)).toString("latin1"));
      return;
    case "bytes":
      exchange.write(pattern(length, tag));
      return;
    case "borrow":
      exchange.borrowBody(borrowed[tag]!.subarray(0, length));
      return;
    case "stream": {
      const stream = exchange.stream();
      let rest = pattern(length, tag);
      while (rest.length > 0) {
        const took = stream.write(rest.subarray(0, 5000));
        rest = rest.subarray(took);
        if (took === 0 || rest.length % 3 === 0) await stream.flush();
      }
      await stream.finish();
      return;
    }
    case "wait":
      if (exchange.canReleaseWorker) exchange.releaseWorker();
      await Bun.sleep(tag % 3);
      await exchange.acquireWorker();
      exchange.write(pattern(length, tag));
      return;
    case "echo":
      exchange.write(exchange.body);
      return;
    case "empty":
      exchange.setStatus(204);
      return;
    case "close":
      exchange.closeAfterResponse();
      exchange.write(pattern(length, tag));
      return;
  }
}

interface PlannedRequest {
  readonly bytes: Uint8Array;
  readonly status: number;
  readonly body: Uint8Array;
  readonly closes: boolean;
}

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

function planRequest(random: SeededRandom): PlannedRequest {
  const kind = random.pick(kinds);
  const tag = random.below(1000);
  const length =
    kind === "borrow"
      ? random.pick([0, 1, 100, 70_000, 1 << 20, borrowedMaxBytes])
      : kind === "stream"
        ? random.between(0, 200_000)
        : random.between(0, 60_000);
  const path = `/k/${kind}/${length}/${tag}`;
  if (kind === "echo") {
    const body = pattern(length, tag + 13);
    if (random.oneIn(2)) {
      const head = `POST ${path} HTTP/1.1\r\nHost: h\r\nContent-Length: ${length}\r\n\r\n`;
      return { bytes: concat([latin1(head), body]), status: 200, body, closes: false };
    }
    const parts: Uint8Array[] = [
      latin1(`POST ${path} HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n`),
    ];
    for (let at = 0; at < length; ) {
      const size = Math.min(length - at, random.between(1, 20_000));
      parts.push(latin1(`${size.toString(16)}\r\n`), body.subarray(at, at + size), latin1("\r\n"));
      at += size;
    }
    parts.push(latin1("0\r\n\r\n"));
    return { bytes: concat(parts), status: 200, body, closes: false };
  }
  const clientCloses = kind !== "close" && random.oneIn(30);
  const head = `GET ${path} HTTP/1.1\r\nHost: h\r\n${clientCloses ? "Connection: close\r\n" : ""}\r\n`;
  const status = kind === "empty" ? 204 : 200;
  const body = kind === "empty" ? new Uint8Array(0) : pattern(length, tag % 26);
  return { bytes: latin1(head), status, body, closes: clientCloses || kind === "close" };
}

function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  return left.length === right.length && Buffer.compare(left, right) === 0;
}

test(`${cases} random pipelines over TCP: every answer complete, correct and in order, whatever the client's pace (seed ${masterSeed})`, async () => {
  await using server = startServer(answer, { maxConnections: 64, workers: 8 });
  const failures: unknown[] = [];
  let answered = 0;
  let cutShort = 0;
  const runCase = async (index: number) => {
    const seed = caseSeed("pipelines", index);
    const random = new SeededRandom(seed);
    const planned = Array.from({ length: random.between(1, 20) }, () => planRequest(random));
    const closing = planned.findIndex((request) => request.closes);
    const expected = closing < 0 ? planned : planned.slice(0, closing + 1);
    const bytes = concat(planned.map((request) => request.bytes));
    const lateReader = random.oneIn(3);
    using client = await RawClient.connect(server.port);
    if (lateReader) client.stopReading();
    await sendInPieces((piece) => client.push(piece), bytes, random.cuts(bytes.length));
    if (lateReader) {
      await Bun.sleep(random.between(10, 100));
      client.resumeReading();
    }
    const fail = (problem: string) => failures.push({ seed, problem, planned: planned.length });
    try {
      await client.waitFor(
        () => client.closed || parseResponses(client.received, false).length >= expected.length,
        "every answer or the close",
        10_000,
      );
      if (closing >= 0) await client.waitForClose(5000);
    } catch (error) {
      fail(String(error));
      return;
    }
    const responses = parseResponses(client.received, client.closed);
    if (responses.length > expected.length)
      fail(`${responses.length} answers to ${expected.length}`);
    if (responses.length < expected.length) {
      cutShort++;
      if (!client.closed) fail("answers missing and the connection still open");
    }
    responses.slice(0, expected.length).forEach((response, at) => {
      const want = expected[at]!;
      if (response.status !== want.status || !sameBytes(response.body, want.body)) {
        fail(
          `answer ${at}: ${response.statusLine}, ${response.body.length} bytes, want ${want.status} and ${want.body.length}`,
        );
      } else answered++;
    });
  };
  let next = 0;
  const lane = async () => {
    while (next < cases) await runCase(next++);
  };
  await Promise.all(Array.from({ length: parallelConnections }, lane));
  const stats = server.stats();
  expect({
    seed: masterSeed,
    failures: failures.slice(0, 5),
    failureCount: failures.length,
    handlerFailures: stats.handlerFailures,
    // Only unread requests the engine dropped (counted) may go unanswered.
    cutShortCounted: cutShort === 0 || stats.pipelinedInputDrops > 0,
    someAnswered: answered > cases * 3,
  }).toEqual({
    seed: masterSeed,
    failures: [],
    failureCount: 0,
    handlerFailures: 0,
    cutShortCounted: true,
    someAnswered: true,
  });
}, 120_000);
