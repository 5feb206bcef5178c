// Random client frame streams for the WebSocket fuzz tests: valid messages (text with characters
// of every UTF-8 length, split into fragments anywhere, even inside a character; binary; lengths
// around each length form), pings and pongs between fragments, a close at the end; then, in most
// cases, one to three breakages of a frame (each a rule of RFC 6455 §5) or of the bytes.
import type { FrameLimits } from "../../src/websocket/frame-parser.ts";
import { SeededRandom } from "./seeded-random.ts";
import { clientFrame, closePayload, concatBytes } from "./websocket-frames.ts";

/** One frame before encoding, with what a breakage may change. */
interface FrameSpec {
  opcode: number;
  final: boolean;
  payload: Uint8Array;
  reserved: number;
  masked: boolean;
  lengthForm: 7 | 16 | 64 | undefined;
  mask: [number, number, number, number];
}

const encoder = new TextEncoder();
const characters = ["a", "Z", " ", "\u0000", "é", "ß", "\u07ff", "€", "\uffff", "😀", "\u{10ffff}"];
const encodedCharacters = characters.map((character) => encoder.encode(character));
const invalidUtf8 = [
  [0xff],
  [0xc0, 0x80],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
  [0xe2, 0x82],
];
const validCloseCodes = [1000, 1001, 1003, 1007, 1011, 1014, 3000, 4999];
const invalidCloseCodes = [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535];

/** Makes one case's stream and the parser limits it is checked against. */
export class FrameStreamMaker extends SeededRandom {
  #frames: FrameSpec[] = [];

  stream(): { bytes: Uint8Array; limits: FrameLimits } {
    this.#frames = [];
    const messageCount = this.between(1, 5);
    let largestMessage = 0;
    let largestFrame = 0;
    let mostFragments = 0;
    for (let message = 0; message < messageCount; message++) {
      const text = this.below(2) === 0;
      const payload = text ? this.#text(this.#size()) : this.#binary(this.#size());
      const pieces = this.#split(payload, this.between(1, 4));
      largestMessage = Math.max(largestMessage, payload.length);
      mostFragments = Math.max(mostFragments, pieces.length);
      pieces.forEach((piece, index) => {
        largestFrame = Math.max(largestFrame, piece.length);
        if (index > 0 && this.oneIn(4))
          this.#control(this.pick([9, 10]), this.#binary(this.below(126)));
        this.#add(index === 0 ? (text ? 1 : 2) : 0, index === pieces.length - 1, piece);
      });
    }
    if (this.oneIn(2)) {
      const reason = this.#text(this.below(24));
      this.#control(
        8,
        this.oneIn(6) ? new Uint8Array(0) : closePayload(this.pick(validCloseCodes), reason),
      );
    }
    if (!this.oneIn(5)) {
      const breakages = this.between(1, 3);
      for (let count = 0; count < breakages; count++) this.#breakFrame();
    }
    let bytes = concatBytes(...this.#frames.map(encode));
    if (this.oneIn(4)) bytes = this.#breakBytes(bytes);
    return { bytes, limits: this.#limits(largestMessage, largestFrame, mostFragments) };
  }

  /** Mostly short payloads, some at each length form's edges, a few over 64 KiB. */
  #size(): number {
    const bucket = this.below(40);
    if (bucket < 5) return 0;
    if (bucket < 25) return this.between(1, 20);
    if (bucket < 31) return this.between(120, 130);
    if (bucket < 39) return this.between(200, 3000);
    return this.between(65_530, 65_545);
  }

  #text(atLeast: number): Uint8Array {
    const parts: Uint8Array[] = [];
    let length = 0;
    while (length < atLeast) {
      const character = this.pick(encodedCharacters);
      parts.push(character);
      length += character.length;
    }
    return concatBytes(...parts);
  }

  #binary(length: number): Uint8Array {
    const bytes = new Uint8Array(length);
    for (let index = 0; index < length; index++) bytes[index] = this.below(256);
    return bytes;
  }

  /** Splits anywhere, inside a character too: only the whole message must be valid. */
  #split(payload: Uint8Array, pieces: number): Uint8Array[] {
    const cuts = this.cuts(payload.length, pieces - 1);
    const parts: Uint8Array[] = [];
    let start = 0;
    for (const cut of [...cuts, payload.length]) {
      parts.push(payload.subarray(start, cut));
      start = cut;
    }
    // An empty fragment now and then: zero-length frames are valid anywhere in a message.
    if (this.oneIn(8)) parts.splice(this.below(parts.length), 0, new Uint8Array(0));
    return parts;
  }

  #add(opcode: number, final: boolean, payload: Uint8Array): void {
    const mask: [number, number, number, number] = this.oneIn(8)
      ? [0, 0, 0, 0]
      : [this.below(256), this.below(256), this.below(256), this.below(256)];
    this.#frames.push({
      opcode,
      final,
      payload,
      reserved: 0,
      masked: true,
      lengthForm: undefined,
      mask,
    });
  }

  #control(opcode: number, payload: Uint8Array): void {
    this.#add(opcode, true, payload);
  }

  /** Breaks one frame by one rule of RFC 6455 §5 (or a limit, through #limits). */
  #breakFrame(): void {
    const frames = this.#frames;
    const at = this.below(frames.length);
    const frame = frames[at]!;
    switch (this.below(11)) {
      case 0:
        frame.reserved = this.between(1, 7);
        break;
      case 1:
        frame.masked = false;
        break;
      case 2:
        if (frame.payload.length < 0x1_0000)
          frame.lengthForm = frame.payload.length < 126 ? this.pick([16, 64]) : 64;
        break;
      case 3:
        frame.opcode = this.pick([3, 4, 5, 6, 7, 11, 12, 13, 14, 15]);
        break;
      case 4:
        if (frame.opcode >= 8) frame.final = false;
        else
          frames.splice(at, 0, { ...frame, opcode: 9, final: false, payload: new Uint8Array(1) });
        break;
      case 5:
        frames.splice(at, 0, {
          ...frame,
          opcode: this.pick([9, 10]),
          payload: new Uint8Array(126),
        });
        break;
      case 6:
        // A continuation with nothing to continue, or a new message inside a fragmented one.
        frame.opcode =
          frame.opcode === 0 ? this.pick([1, 2]) : frame.opcode <= 2 ? 0 : frame.opcode;
        break;
      case 7: {
        const bad = this.pick(invalidUtf8);
        const payload = new Uint8Array(frame.payload.length + bad.length);
        const where = this.below(frame.payload.length + 1);
        payload.set(frame.payload.subarray(0, where));
        payload.set(bad, where);
        payload.set(frame.payload.subarray(where), where + bad.length);
        frame.payload = payload;
        break;
      }
      case 8:
        frames.splice(at, 0, { ...frame, opcode: 8, final: true, payload: new Uint8Array([0x03]) });
        break;
      case 9:
        frames.splice(at, 0, {
          ...frame,
          opcode: 8,
          final: true,
          payload: closePayload(this.pick(invalidCloseCodes), "x"),
        });
        break;
      default:
        frames.splice(at, 0, {
          ...frame,
          opcode: 8,
          final: true,
          payload: closePayload(1000, new Uint8Array(this.pick(invalidUtf8))),
        });
    }
  }

  /** Byte-level damage after encoding: a flip, a random byte, an insertion, a cut. */
  #breakBytes(source: Uint8Array): Uint8Array {
    const bytes = Array.from(source);
    const at = this.below(bytes.length + 1);
    switch (this.below(4)) {
      case 0:
        if (at < bytes.length) bytes[at]! ^= 1 << this.below(8);
        break;
      case 1:
        if (at < bytes.length) bytes[at] = this.below(256);
        break;
      case 2:
        bytes.splice(at, 0, this.below(256));
        break;
      default:
        bytes.length = at;
    }
    return new Uint8Array(bytes);
  }

  /** Roomy limits mostly; near the stream's own sizes in one case of three, so they trip. */
  #limits(largestMessage: number, largestFrame: number, mostFragments: number): FrameLimits {
    const roomy = { maxMessageBytes: 1 << 20, maxFrameBytes: 1 << 20, maxFragments: 64 };
    if (!this.oneIn(3)) return roomy;
    switch (this.below(3)) {
      case 0: {
        // A frame limit above the message limit is refused by the engine (it could never apply).
        const maxMessageBytes = Math.max(0, largestMessage - this.below(3));
        return { ...roomy, maxMessageBytes, maxFrameBytes: maxMessageBytes };
      }
      case 1:
        return { ...roomy, maxFrameBytes: Math.max(0, largestFrame - this.below(3)) };
      default:
        return { ...roomy, maxFragments: Math.max(1, mostFragments - this.below(2)) };
    }
  }
}

function encode(frame: FrameSpec): Uint8Array {
  return clientFrame(frame.opcode, frame.payload, {
    final: frame.final,
    reserved: frame.reserved,
    masked: frame.masked,
    lengthForm: frame.lengthForm,
    mask: frame.mask,
  });
}
