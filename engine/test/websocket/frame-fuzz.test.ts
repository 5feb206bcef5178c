// Seeded random frame streams, valid and broken, against the reference decoder
// (support/reference-frames.ts): corral's streaming FrameParser must see the same messages,
// control frames and first error, whether the bytes come at once, in random pieces or one at a
// time.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { expect, test } from "bun:test";
import {
  type FrameLimits,
  FrameParser,
  frameControl,
  frameData,
  frameError,
  frameNeedMore,
} from "../../src/websocket/frame-parser.ts";
import { type ReferenceEvent, referenceDecode } from "../support/reference-frames.ts";
import { caseSeed, masterSeed } from "../support/seeded-random.ts";
import { FrameStreamMaker } from "../support/websocket-fuzz-streams.ts";

const cases = 3000;
/** Byte-by-byte feeding is quadratic in nothing but slow in JavaScript: only shorter streams. */
const byteByByteMaxBytes = 4096;

/** Feeds `bytes` in the pieces `cuts` makes, the way a socket hands chunks to a session. */
function streamDecode(
  bytes: Uint8Array,
  cuts: readonly number[],
  limits: FrameLimits,
  copyTargetBytes: number,
): ReferenceEvent[] {
  const parser = new FrameParser(limits);
  parser.copyTarget = new Uint8Array(copyTargetBytes);
  // Bytes not revealed yet are 0xff, so a parser that looked past `end` would differ.
  const buffer = new Uint8Array(bytes.length).fill(0xff);
  const events: ReferenceEvent[] = [];
  let message: number[] = [];
  let revealed = 0;
  for (const end of [...cuts, bytes.length]) {
    buffer.set(bytes.subarray(revealed, end), revealed);
    let position = revealed;
    revealed = end;
    while (position < end) {
      const event = parser.parse(buffer, position, end);
      if (parser.position <= position && event === frameNeedMore) {
        throw new Error(`no progress at ${position} of ${end}`);
      }
      position = parser.position;
      if (event === frameNeedMore) continue;
      if (event === frameError) {
        events.push({ kind: "error", code: parser.closeCode });
        return events;
      }
      if (event === frameControl) {
        const payload = [...parser.controlPayload()];
        events.push(
          parser.controlOpcode === 8
            ? { kind: "control", opcode: 8, payload, closeCode: parser.closeCode }
            : { kind: "control", opcode: parser.controlOpcode, payload },
        );
        continue;
      }
      if (event !== frameData) throw new Error(`unknown event ${event}`);
      if (parser.messageStarted) message = [];
      const source = parser.payloadCopied ? parser.copyTarget : buffer;
      for (let index = parser.payloadStart; index < parser.payloadEnd; index++) {
        message.push(source[index]!);
      }
      if (parser.messageEnded) {
        events.push({ kind: "message", opcode: parser.messageOpcode, payload: message });
      }
    }
  }
  return events;
}

function outcomeName(events: readonly ReferenceEvent[]): string {
  const last = events[events.length - 1];
  return last?.kind === "error" ? `error ${last.code}` : "no error";
}

test(`${cases} random frame streams: the streaming parser agrees with the reference at once, in pieces and byte by byte (seed ${masterSeed})`, () => {
  const mismatches: unknown[] = [];
  const outcomes = new Map<string, number>();
  let messages = 0;
  for (let index = 0; index < cases; index++) {
    const seed = caseSeed("frames", index);
    const maker = new FrameStreamMaker(seed);
    const { bytes, limits } = maker.stream();
    const expected = referenceDecode(bytes, limits);
    const name = outcomeName(expected);
    outcomes.set(name, (outcomes.get(name) ?? 0) + 1);
    messages += expected.filter((event) => event.kind === "message").length;
    const feeds: [string, number[]][] = [
      ["at once", []],
      ["in pieces", maker.cuts(bytes.length, 6)],
    ];
    if (bytes.length <= byteByByteMaxBytes) {
      feeds.push(["byte by byte", Array.from({ length: bytes.length - 1 }, (_, at) => at + 1)]);
    }
    for (const [feed, cuts] of feeds) {
      const copyTargetBytes = maker.pick([0, 8, 125, 4096]);
      const seen = streamDecode(bytes, cuts, limits, copyTargetBytes);
      if (JSON.stringify(seen) === JSON.stringify(expected)) continue;
      mismatches.push({
        seed,
        feed,
        cuts: cuts.length > 8 ? `${cuts.length} cuts` : cuts,
        copyTargetBytes,
        limits,
        bytes: Buffer.from(bytes.subarray(0, 256)).toString("hex"),
        expected: JSON.stringify(expected).slice(0, 400),
        seen: JSON.stringify(seen).slice(0, 400),
      });
    }
  }
  expect({
    seed: masterSeed,
    mismatches: mismatches.slice(0, 3),
    mismatchCount: mismatches.length,
    // The streams reach every outcome: clean, each close code, and whole messages.
    reached: ["no error", "error 1002", "error 1007", "error 1009"].map(
      (name) => (outcomes.get(name) ?? 0) > 20,
    ),
    someMessages: messages > cases,
  }).toEqual({
    seed: masterSeed,
    mismatches: [],
    mismatchCount: 0,
    reached: [true, true, true, true],
    someMessages: true,
  });
}, 60_000);
