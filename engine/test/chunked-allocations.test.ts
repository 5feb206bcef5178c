import { heapStats } from "bun:jsc";
import { expect, test } from "bun:test";
import { ChunkedBodyDecoder } from "../src/parser/chunked-body.ts";
import { decodeAcrossTurns } from "./support/decode-across-turns.ts";

// A body of 1-byte chunks made a view of the input for every chunk (87,000 per socket chunk of
// 512 KiB): four clients sending such bodies grew the resident set past the memory test's limit.
// Short runs of data are copied byte by byte now, and make no object.
test("decoding 20,000 one-byte chunks makes no typed-array views", () => {
  const chunks = 20_000;
  const input = new TextEncoder().encode(`${"1\r\na\r\n".repeat(chunks)}0\r\n\r\n`);
  const output = new Uint8Array(chunks);
  const limits = { maxBodyBytes: chunks, maxChunkExtensionBytes: 16, maxTrailerBytes: 64 };
  const decoder = new ChunkedBodyDecoder();
  decodeAcrossTurns(decoder, input, 0, input.length, output, limits);
  decoder.reset();
  Bun.gc(true);
  const before = heapStats().objectTypeCounts.Uint8Array ?? 0;
  const code = decodeAcrossTurns(decoder, input, 0, input.length, output, limits);
  const after = heapStats().objectTypeCounts.Uint8Array ?? 0;
  expect([code, decoder.decodedLength, output.every((byte) => byte === 0x61)]).toEqual([
    1,
    chunks,
    true,
  ]);
  expect(after - before).toBeLessThan(100);
});
