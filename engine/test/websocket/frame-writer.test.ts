import { expect, test } from "bun:test";
import fc from "fast-check";
import { opcodeText } from "../../src/websocket/frame-parser.ts";
import { encodeFrame } from "../../src/websocket/frame-writer.ts";

/** The payload length a server frame's header gives (unmasked: 7 bits, then 16 or 64). */
function declaredLength(frame: Uint8Array): { length: number; headerBytes: number } {
  const short = frame[1]! & 0x7f;
  if (short < 126) return { length: short, headerBytes: 2 };
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (short === 126) return { length: view.getUint16(2), headerBytes: 4 };
  return { length: Number(view.getBigUint64(2)), headerBytes: 10 };
}

test("a text frame carries TextEncoder's bytes of any string, lone surrogates as U+FFFD", () => {
  const piece = fc.constantFrom("a", "é", "€", "😀", "\ud800", "\udc00", "\u0000", "x".repeat(70));
  const encoder = new TextEncoder();
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
      const text = pieces.join("");
      const frame = encodeFrame(opcodeText, text);
      const expected = encoder.encode(text);
      const { length, headerBytes } = declaredLength(frame);
      expect(frame[0]).toBe(0x80 | opcodeText);
      expect(length).toBe(expected.length);
      expect(frame.length).toBe(headerBytes + expected.length);
      expect([...frame.subarray(headerBytes)]).toEqual([...expected]);
    }),
    { numRuns: 2000 },
  );
});
