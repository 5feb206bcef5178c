import { opcodeBinary, opcodeText } from "./frame-parser.ts";
import { encodeFrame } from "./frame-writer.ts";
import { sendTypeError } from "./send-rules.ts";

/**
 * A message encoded once as a whole frame, to be sent to many WebSockets by reference
 * (`session.sendEncoded`): a room's publish costs one encoding and one array, whatever the
 * number of members. Immutable once made.
 *
 * @example
 * const message = EncodedMessage.of("hello, room");
 * for (const member of members) member.sendEncoded(message);
 */
export class EncodedMessage {
  /** The frame's bytes: header and payload. */
  readonly frame: Uint8Array;
  /** Whether it is a text message (else binary). */
  readonly isText: boolean;

  private constructor(frame: Uint8Array, isText: boolean) {
    this.frame = frame;
    this.isText = isText;
  }

  /** Encodes a string as a text message, bytes as a binary message (the bytes are copied). */
  static of(data: string | Uint8Array): EncodedMessage {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) throw sendTypeError(data);
    return typeof data === "string"
      ? new EncodedMessage(encodeFrame(opcodeText, data), true)
      : new EncodedMessage(encodeFrame(opcodeBinary, data), false);
  }

  /** Payload bytes (the frame without its header). */
  get payloadBytes(): number {
    const second = this.frame[1]! & 0x7f;
    return this.frame.length - (second < 126 ? 2 : second === 126 ? 4 : 10);
  }
}
