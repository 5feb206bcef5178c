import { describe, expect, test } from "bun:test";
import {
  type FrameLimits,
  FrameParser,
  frameControl,
  frameData,
  frameError,
  frameNeedMore,
} from "../../src/websocket/frame-parser.ts";
import { clientFrame, closePayload, concatBytes } from "../support/websocket-frames.ts";

const limits: FrameLimits = { maxMessageBytes: 1024, maxFrameBytes: 512, maxFragments: 4 };
type Event =
  | { readonly message: string; readonly opcode: number }
  | { readonly control: number; readonly payload: string; readonly closeCode?: number }
  | { readonly error: number };

/**
 * Feeds `bytes` cut into pieces at `cuts`; returns whole messages, control frames, the error.
 * With `copyTarget`, whole messages that fit are unmasked into it (and must be).
 */
function parseAll(
  bytes: Uint8Array,
  cuts: number[] = [],
  parserLimits = limits,
  copyTarget?: Uint8Array,
): Event[] {
  const parser = new FrameParser(parserLimits);
  if (copyTarget !== undefined) parser.copyTarget = copyTarget;
  const events: Event[] = [];
  let message: number[] = [];
  const bounds = [0, ...cuts, bytes.length];
  for (let piece = 0; piece + 1 < bounds.length; piece++) {
    // The parser unmasks in place: each piece is a fresh copy, as socket chunks are.
    const chunk = bytes.slice(bounds[piece], bounds[piece + 1]);
    let position = 0;
    for (;;) {
      const event = parser.parse(chunk, position, chunk.length);
      position = parser.position;
      if (event === frameNeedMore) break;
      if (event === frameError) {
        events.push({ error: parser.closeCode });
        return events;
      }
      if (event === frameControl) {
        const payload = Buffer.from(parser.controlPayload()).toString("latin1");
        events.push(
          parser.controlOpcode === 8
            ? { control: 8, payload, closeCode: parser.closeCode }
            : { control: parser.controlOpcode, payload },
        );
        continue;
      }
      expect(event).toBe(frameData);
      if (parser.messageStarted) message = [];
      const whole = parser.messageStarted && parser.messageEnded;
      const length = parser.payloadEnd - parser.payloadStart;
      const fits = copyTarget !== undefined && length > 0 && length <= copyTarget.length;
      expect(parser.payloadCopied).toBe(whole && fits);
      const source = parser.payloadCopied ? parser.copyTarget : chunk;
      message.push(...source.subarray(parser.payloadStart, parser.payloadEnd));
      if (parser.messageEnded) {
        events.push({
          message: Buffer.from(message).toString("latin1"),
          opcode: parser.messageOpcode,
        });
      }
    }
  }
  return events;
}

function utf8(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

const accepted: ReadonlyArray<readonly [string, Uint8Array, Event[]]> = [
  ["empty text", clientFrame(1, ""), [{ message: "", opcode: 1 }]],
  ["short text", clientFrame(1, "hello"), [{ message: "hello", opcode: 1 }]],
  [
    "binary 300 B (16-bit length)",
    clientFrame(2, "x".repeat(300)),
    [{ message: "x".repeat(300), opcode: 2 }],
  ],
  [
    "three fragments with a ping between",
    concatBytes(
      clientFrame(1, "he", { final: false }),
      clientFrame(9, "p"),
      clientFrame(0, "l", { final: false }),
      clientFrame(0, "lo"),
    ),
    [
      { control: 9, payload: "p" },
      { message: "hello", opcode: 1 },
    ],
  ],
  [
    "empty fragments",
    concatBytes(clientFrame(1, "", { final: false }), clientFrame(0, "")),
    [{ message: "", opcode: 1 }],
  ],
  [
    "UTF-8 split inside a character across fragments",
    concatBytes(
      clientFrame(1, new Uint8Array([0xce, 0xba, 0xe1]), { final: false }),
      clientFrame(0, new Uint8Array([0xbd, 0xb9, 0xcf, 0x83])),
    ),
    [{ message: "\xce\xba\xe1\xbd\xb9\xcf\x83", opcode: 1 }],
  ],
  ["4-byte character", clientFrame(1, "𝄞"), [{ message: utf8("𝄞"), opcode: 1 }]],
  [
    "ping of 125 bytes",
    clientFrame(9, "p".repeat(125)),
    [{ control: 9, payload: "p".repeat(125) }],
  ],
  ["pong", clientFrame(10, "x"), [{ control: 10, payload: "x" }]],
  ["close without a body", clientFrame(8), [{ control: 8, payload: "", closeCode: 1005 }]],
  [
    "close 1000 with a reason",
    clientFrame(8, closePayload(1000, "bye")),
    [{ control: 8, payload: "\x03\xe8bye", closeCode: 1000 }],
  ],
  [
    "close 3000",
    clientFrame(8, closePayload(3000)),
    [{ control: 8, payload: "\x0b\xb8", closeCode: 3000 }],
  ],
  [
    "close 4999",
    clientFrame(8, closePayload(4999)),
    [{ control: 8, payload: "\x13\x87", closeCode: 4999 }],
  ],
  [
    "message exactly maxFrameBytes",
    clientFrame(2, "m".repeat(512)),
    [{ message: "m".repeat(512), opcode: 2 }],
  ],
  [
    // Each message is counted on its own: the second used to be counted on top of the first.
    "two messages in a row, each of 512 of the 1024 maxMessageBytes and more together",
    concatBytes(
      clientFrame(2, "a".repeat(512), { final: false }),
      clientFrame(0, "b".repeat(400)),
      clientFrame(2, "c".repeat(512)),
    ),
    [
      { message: "a".repeat(512) + "b".repeat(400), opcode: 2 },
      { message: "c".repeat(512), opcode: 2 },
    ],
  ],
  [
    "a message of maxFragments fragments, then a message of one frame",
    concatBytes(
      clientFrame(1, "1", { final: false }),
      clientFrame(0, "2", { final: false }),
      clientFrame(0, "3", { final: false }),
      clientFrame(0, "4"),
      clientFrame(1, "5"),
    ),
    [
      { message: "1234", opcode: 1 },
      { message: "5", opcode: 1 },
    ],
  ],
  [
    "message exactly maxMessageBytes in 2 frames",
    concatBytes(clientFrame(2, "a".repeat(512), { final: false }), clientFrame(0, "b".repeat(512))),
    [{ message: "a".repeat(512) + "b".repeat(512), opcode: 2 }],
  ],
  [
    "exactly maxFragments",
    concatBytes(
      clientFrame(2, "1", { final: false }),
      clientFrame(0, "2", { final: false }),
      clientFrame(0, "3", { final: false }),
      clientFrame(0, "4"),
    ),
    [{ message: "1234", opcode: 2 }],
  ],
];

const refused: ReadonlyArray<readonly [string, Uint8Array, number]> = [
  ["RSV1", clientFrame(1, "x", { reserved: 4 }), 1002],
  ["RSV2", clientFrame(1, "x", { reserved: 2 }), 1002],
  ["RSV3", clientFrame(1, "x", { reserved: 1 }), 1002],
  ["opcode 3", clientFrame(3), 1002],
  ["opcode 7", clientFrame(7), 1002],
  ["opcode 0xB", clientFrame(0xb), 1002],
  ["opcode 0xF", clientFrame(0xf), 1002],
  ["unmasked", clientFrame(1, "x", { masked: false }), 1002],
  ["fragmented ping", clientFrame(9, "", { final: false }), 1002],
  ["ping of 126 bytes", clientFrame(9, "p".repeat(126)), 1002],
  ["continuation first", clientFrame(0, "x"), 1002],
  [
    "text inside a fragmented message",
    concatBytes(clientFrame(1, "a", { final: false }), clientFrame(1, "b")),
    1002,
  ],
  ["16-bit length not minimal", clientFrame(2, "x", { lengthForm: 16 }), 1002],
  ["64-bit length not minimal", clientFrame(2, "x".repeat(200), { lengthForm: 64 }), 1002],
  ["64-bit length with the top bit", Uint8Array.of(0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0), 1002],
  ["frame over maxFrameBytes", clientFrame(2, "m".repeat(513)), 1009],
  [
    "message over maxMessageBytes",
    concatBytes(
      clientFrame(2, "a".repeat(512), { final: false }),
      clientFrame(0, "b".repeat(512), { final: false }),
      clientFrame(0, "c"),
    ),
    1009,
  ],
  [
    "over maxFragments",
    concatBytes(
      clientFrame(2, "1", { final: false }),
      ...["2", "3", "4"].map((part) => clientFrame(0, part, { final: false })),
      clientFrame(0, "5"),
    ),
    1009,
  ],
  ["invalid UTF-8", clientFrame(1, new Uint8Array([0x61, 0xff])), 1007],
  ["overlong slash", clientFrame(1, new Uint8Array([0xc0, 0xaf])), 1007],
  ["surrogate", clientFrame(1, new Uint8Array([0xed, 0xa0, 0x80])), 1007],
  ["above U+10FFFF", clientFrame(1, new Uint8Array([0xf4, 0x90, 0x80, 0x80])), 1007],
  ["text ends inside a character", clientFrame(1, new Uint8Array([0xce])), 1007],
  ["close of 1 byte", clientFrame(8, new Uint8Array([3])), 1002],
  ["close code 999", clientFrame(8, closePayload(999)), 1002],
  ["close code 1004", clientFrame(8, closePayload(1004)), 1002],
  ["close code 1005", clientFrame(8, closePayload(1005)), 1002],
  ["close code 1006", clientFrame(8, closePayload(1006)), 1002],
  ["close code 1015", clientFrame(8, closePayload(1015)), 1002],
  ["close code 2999", clientFrame(8, closePayload(2999)), 1002],
  ["close code 5000", clientFrame(8, closePayload(5000)), 1002],
  ["close reason invalid UTF-8", clientFrame(8, closePayload(1000, new Uint8Array([0xff]))), 1007],
];

describe("FrameParser", () => {
  // Each case also with a copy target of 4 and of 600 bytes: whole messages that fit are
  // unmasked into it, the others in place, with the same events and the same rules.
  const copyTargets = [undefined, new Uint8Array(4), new Uint8Array(600)];

  test.each(accepted)("accepts %s, whole and split at every byte", (_name, bytes, expected) => {
    for (const target of copyTargets) {
      expect(parseAll(bytes, [], limits, target)).toEqual(expected);
      for (let cut = 1; cut < bytes.length; cut++) {
        expect(parseAll(bytes, [cut], limits, target)).toEqual(expected);
      }
      const everyByte = Array.from({ length: bytes.length - 1 }, (_, index) => index + 1);
      expect(parseAll(bytes, everyByte, limits, target)).toEqual(expected);
    }
  });

  test.each(refused)(
    "refuses %s with its close code, whole and byte by byte",
    (_name, bytes, code) => {
      for (const target of copyTargets) {
        expect(parseAll(bytes, [], limits, target).at(-1)).toEqual({ error: code });
        const everyByte = Array.from({ length: bytes.length - 1 }, (_, index) => index + 1);
        expect(parseAll(bytes, everyByte, limits, target).at(-1)).toEqual({ error: code });
      }
    },
  );

  test("a whole message that fits is unmasked into the copy target, and its chunk left as it came", () => {
    const parser = new FrameParser(limits);
    const target = new Uint8Array(8);
    parser.copyTarget = target;
    const chunk = concatBytes(clientFrame(2, "abcdefgh"), clientFrame(2, "abcdefghi"));
    const untouched = chunk.slice();
    expect(parser.parse(chunk, 0, chunk.length)).toBe(frameData);
    expect([parser.payloadCopied, parser.payloadStart, parser.payloadEnd]).toEqual([true, 0, 8]);
    expect(Buffer.from(target).toString()).toBe("abcdefgh");
    expect(chunk.subarray(0, 14)).toEqual(untouched.subarray(0, 14));
    // One byte over the target: unmasked in place in the chunk.
    expect(parser.parse(chunk, parser.position, chunk.length)).toBe(frameData);
    expect(parser.payloadCopied).toBe(false);
    expect(Buffer.from(chunk.subarray(parser.payloadStart, parser.payloadEnd)).toString()).toBe(
      "abcdefghi",
    );
    expect(Buffer.from(target).toString()).toBe("abcdefgh");
  });

  test("refuses an oversized frame at its header, before any payload byte comes", () => {
    const header = clientFrame(2, "m".repeat(513)).subarray(0, 4);
    expect(parseAll(header)).toEqual([{ error: 1009 }]);
  });

  test("fails invalid UTF-8 at the byte that breaks it, before the frame ends (fail fast)", () => {
    const frame = clientFrame(1, new Uint8Array([0x61, 0xff, 0x61, 0x61]));
    // Header (6 bytes) plus "a" and the bad byte: the rest of the frame never came.
    expect(parseAll(frame.subarray(0, 8))).toEqual([{ error: 1007 }]);
  });

  test("a 2^63 - 1 length is refused by the limit, not allocated", () => {
    const huge = Uint8Array.of(0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
    expect(parseAll(huge)).toEqual([{ error: 1009 }]);
  });
});

/** The data payload `parser` hands back over `pieces`, unmasked, in order. */
function dataOf(parser: FrameParser, pieces: Uint8Array[]): Uint8Array {
  const collected: number[] = [];
  for (const piece of pieces) {
    let position = 0;
    for (;;) {
      const event = parser.parse(piece, position, piece.length);
      position = parser.position;
      if (event !== frameData) break;
      const source = parser.payloadCopied ? parser.copyTarget : piece;
      collected.push(...source.subarray(parser.payloadStart, parser.payloadEnd));
    }
  }
  return Uint8Array.from(collected);
}

test("long payloads unmask correctly at every alignment and mask phase (the 32-bit path)", () => {
  // Eight lengths: the words left after four a turn are 0 to 3 at every alignment.
  for (let length = 3000; length < 3008; length++) {
    unmasksAtEveryAlignment(Uint8Array.from({ length }, (_, index) => (index * 7 + 3) & 0xff));
  }
});

function unmasksAtEveryAlignment(payload: Uint8Array): void {
  for (let lead = 0; lead < 4; lead++) {
    for (const cut of [0, 1, 2, 3, 5, 77]) {
      // The frame shifted in its buffer so the payload starts at each alignment (a fresh copy
      // each time: the parser unmasks in place).
      const frame = clientFrame(2, payload, { mask: [0x11, 0x22, 0x33, 0x44] });
      const shifted = new Uint8Array(frame.length + lead);
      shifted.set(frame, lead);
      const parser = new FrameParser({
        maxMessageBytes: 4096,
        maxFrameBytes: 4096,
        maxFragments: 1,
      });
      const pieces = [shifted.subarray(lead, lead + 8 + cut), shifted.subarray(lead + 8 + cut)];
      expect(dataOf(parser, pieces)).toEqual(payload);
    }
  }
}

test("short payloads unmask correctly in every length and mask phase (four bytes a turn)", () => {
  for (let length = 0; length <= 40; length++) {
    const payload = Uint8Array.from({ length }, (_, index) => (index * 13 + 5) & 0xff);
    // Cut after the header plus `cut` payload bytes: the second run starts at each mask phase.
    for (let cut = 0; cut <= Math.min(length, 5); cut++) {
      const frame = clientFrame(2, payload, { mask: [0xa1, 0x5b, 0x3c, 0xe7] });
      const parser = new FrameParser({ maxMessageBytes: 64, maxFrameBytes: 64, maxFragments: 1 });
      const data = dataOf(parser, [frame.subarray(0, 6 + cut), frame.subarray(6 + cut)]);
      expect([length, cut, data]).toEqual([length, cut, payload]);
      // Whole, into a copy target.
      const copying = new FrameParser({ maxMessageBytes: 64, maxFrameBytes: 64, maxFragments: 1 });
      copying.copyTarget = new Uint8Array(64);
      const copied = dataOf(copying, [clientFrame(2, payload, { mask: [0xa1, 0x5b, 0x3c, 0xe7] })]);
      expect([length, copied]).toEqual([length, payload]);
    }
  }
});
