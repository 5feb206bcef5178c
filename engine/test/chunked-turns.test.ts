import { expect, test } from "bun:test";
import { createEngine, type Engine } from "../index.ts";
import {
  ChunkedBodyDecoder,
  chunkedComplete,
  chunkedFramingBytesPerTurn,
  chunkedIncomplete,
} from "../src/parser/chunked-body.ts";
import { parseResponses } from "./support/raw-client.ts";

// Decoding a chunked body costs about 4 ns a framing byte (size lines, extensions, line ends,
// short data runs); a body decodes at most `chunkedFramingBytesPerTurn` of them a turn of the
// event loop, so an upload of 1-byte chunks cannot hold the loop for a socket chunk's worth.

const limits = { maxBodyBytes: 1 << 24, maxChunkExtensionBytes: 64, maxTrailerBytes: 64 };
const bytesOf = (text: string) => new TextEncoder().encode(text);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
/** A 1-byte chunk costs 6 framing bytes: its size digit, 2 line ends and its byte of data. */
const oneByteChunksPerTurn = Math.ceil(chunkedFramingBytesPerTurn / 6);

test("a body of 1-byte chunks stops at the turn's budget, takes nothing more until the next turn, and decodes whole across turns", () => {
  const chunks = 25_000;
  const input = bytesOf(`${"1\r\nx\r\n".repeat(chunks)}0\r\n\r\n`);
  const output = new Uint8Array(chunks);
  const decoder = new ChunkedBodyDecoder();
  expect(decoder.decode(input, 0, input.length, output, limits)).toBe(chunkedIncomplete);
  expect([decoder.turnSpent, decoder.decodedLength, decoder.consumed]).toEqual([
    true,
    oneByteChunksPerTurn - 1,
    (oneByteChunksPerTurn - 1) * 6 + 3,
  ]);
  let start = decoder.consumed;
  expect(decoder.decode(input, start, input.length, output, limits)).toBe(chunkedIncomplete);
  expect([decoder.consumed, decoder.decodedLength]).toEqual([0, oneByteChunksPerTurn - 1]);
  let turns = 1;
  let code = chunkedIncomplete;
  while (code === chunkedIncomplete) {
    decoder.nextTurn();
    turns++;
    code = decoder.decode(input, start, input.length, output, limits);
    start += decoder.consumed;
  }
  expect([code, start, decoder.decodedLength, turns]).toEqual([
    chunkedComplete,
    input.length,
    chunks,
    Math.ceil((chunks * 6 + 5) / chunkedFramingBytesPerTurn),
  ]);
  expect(output.every((byte) => byte === 0x78)).toBe(true);
});

test("the budget is the connection's, kept from one body to the next until the next turn", () => {
  const decoder = new ChunkedBodyDecoder();
  const output = new Uint8Array(1 << 16);
  const body = bytesOf(`${"1\r\nx\r\n".repeat(oneByteChunksPerTurn / 2)}0\r\n\r\n`);
  expect(decoder.decode(body, 0, body.length, output, limits)).toBe(chunkedComplete);
  decoder.reset();
  expect(decoder.decode(body, 0, body.length, output, limits)).toBe(chunkedIncomplete);
  expect(decoder.turnSpent).toBe(true);
  decoder.reset();
  expect(decoder.decode(body, 0, body.length, output, limits)).toBe(chunkedIncomplete);
  expect(decoder.consumed).toBe(0);
  decoder.nextTurn();
  expect(decoder.decode(body, 0, body.length, output, limits)).toBe(chunkedComplete);
});

test("large chunks barely spend the budget: 64 chunks of 64 KiB decode in one turn", () => {
  const size = 64 * 1024;
  const chunk = `${size.toString(16)}\r\n${"y".repeat(size)}\r\n`;
  const input = bytesOf(`${chunk.repeat(64)}0\r\n\r\n`);
  const output = new Uint8Array(64 * size);
  const decoder = new ChunkedBodyDecoder();
  expect(decoder.decode(input, 0, input.length, output, limits)).toBe(chunkedComplete);
  expect([decoder.decodedLength, decoder.turnSpent]).toEqual([64 * size, false]);
});

const oneByteChunks = (count: number) => "1\r\nx\r\n".repeat(count);
const lastChunk = "0\r\n\r\n";

/** An engine whose handler reads every body as a stream, counting its bytes (`received()`). */
function countingEngine() {
  let received = 0;
  const engine = createEngine({
    log: null,
    streamBodies: () => true,
    async handler(exchange) {
      for await (const piece of exchange.bodyStream()) received += piece.length;
      exchange.writeText(`got ${received}`);
    },
  });
  return { engine, received: () => received };
}

/**
 * Sends a chunked request head and `body` over an in-memory connection to `engine`, noting
 * `observe()` at the end of every turn until `done(answers)` (the first note is taken before the
 * engine's first next turn). Returns the notes, the connection and its answers so far.
 */
async function sendInMemory<T>(
  engine: Engine,
  body: string,
  observe: () => T,
  done: (answers: readonly Uint8Array[]) => boolean,
) {
  const answers: Uint8Array[] = [];
  const connection = engine.connectInMemory(
    (bytes) => answers.push(bytes),
    () => {},
  )!;
  const notes: T[] = [];
  // Scheduled before the bytes are sent, so it runs before the engine's next turn.
  setImmediate(() => notes.push(observe()));
  connection.send(
    bytesOf(`POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n${body}`),
  );
  while (!done(answers)) {
    await nextTurn();
    notes.push(observe());
  }
  return { notes, connection, answers };
}

const answered = (answers: readonly Uint8Array[]) => answers.length > 0;
const answerText = (answers: readonly Uint8Array[]) =>
  parseResponses(Buffer.concat(answers), false)[0]!.text;

test("over a connection, a streamed body of 1-byte chunks is decoded one turn's budget a turn", async () => {
  const chunks = 3 * oneByteChunksPerTurn;
  const { engine, received } = countingEngine();
  const body = oneByteChunks(chunks) + lastChunk;
  const { notes, answers } = await sendInMemory(engine, body, received, answered);
  expect([notes[0], notes.at(-1), answerText(answers)]).toEqual([
    oneByteChunksPerTurn - 1,
    chunks,
    `got ${chunks}`,
  ]);
  expect(notes.length).toBeGreaterThanOrEqual(3);
  await engine.stop({ graceMs: 0 });
});

test("over a connection, a whole body of 1-byte chunks is decoded one turn's budget a turn", async () => {
  const chunks = 3 * oneByteChunksPerTurn;
  let handled = false;
  const engine = createEngine({
    log: null,
    handler(exchange) {
      handled = true;
      exchange.writeText(`got ${exchange.body.length}`);
    },
  });
  const body = oneByteChunks(chunks) + lastChunk;
  const { notes, answers } = await sendInMemory(engine, body, () => handled, answered);
  expect([notes.slice(0, 2), answerText(answers)]).toEqual([[false, false], `got ${chunks}`]);
  await engine.stop({ graceMs: 0 });
});

test("a streamed body waiting for the next turn waits on the engine, not the client: the slow-upload rule does not count it", async () => {
  const chunks = 3 * oneByteChunksPerTurn;
  const { engine, received } = countingEngine();
  const held = () => engine.stats().workersHeldBySlowUploads;
  const { notes, connection, answers } = await sendInMemory(
    engine,
    oneByteChunks(chunks),
    held,
    () => received() === chunks,
  );
  // Every note but the last was taken while decoding waited for the next turn.
  expect(notes.length).toBeGreaterThanOrEqual(3);
  expect(notes.slice(0, -1).every((count) => count === 0)).toBe(true);
  // Everything sent is decoded: the read now waits on the client.
  await nextTurn();
  expect(held()).toBe(1);
  connection.send(bytesOf(lastChunk));
  while (!answered(answers)) await nextTurn();
  expect([answerText(answers), held()]).toEqual([`got ${chunks}`, 0]);
  await engine.stop({ graceMs: 0 });
});
