// A reference decoder of client-to-server WebSocket frames (RFC 6455 §5), written to be obviously
// right rather than fast: the whole input at once, each rule checked at the byte that breaks it
// (so that the first error in the byte stream is the one reported, as a streaming parser must),
// and UTF-8 checked by the platform's fatal TextDecoder. The fuzz tests compare corral's
// streaming FrameParser and WebSocket sessions with it.
import type { FrameLimits } from "../../src/websocket/frame-parser.ts";

/** What the decoder saw, in order. */
export type ReferenceEvent =
  | { readonly kind: "message"; readonly opcode: number; readonly payload: readonly number[] }
  | {
      readonly kind: "control";
      readonly opcode: number;
      readonly payload: readonly number[];
      /** For a close frame: its code, 1005 when it had none. */
      readonly closeCode?: number;
    }
  | { readonly kind: "error"; readonly code: number };

const protocolError = 1002;
const invalidPayload = 1007;
const messageTooBig = 1009;

/** RFC 6455 §7.4: the codes a peer may send in a close frame. */
function validCloseCode(code: number): boolean {
  if (code >= 3000 && code <= 4999) return true;
  return code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006;
}

function validUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Decodes `bytes` until they end (a frame cut short is left undecoded) or the first error, which
 * ends the list.
 */
export function referenceDecode(bytes: Uint8Array, limits: FrameLimits): ReferenceEvent[] {
  const events: ReferenceEvent[] = [];
  const fail = (code: number) => {
    events.push({ kind: "error", code });
    return events;
  };
  let at = 0;
  let inMessage = false;
  let messageOpcode = 0;
  let messageBytes = 0;
  let fragments = 0;
  let message: number[] = [];
  let text = new TextDecoder("utf-8", { fatal: true });
  while (at < bytes.length) {
    const first = bytes[at]!;
    const final = (first & 0x80) !== 0;
    const opcode = first & 0x0f;
    const control = opcode >= 8;
    if ((first & 0x70) !== 0) return fail(protocolError);
    if ((opcode > 2 && opcode < 8) || opcode > 10) return fail(protocolError);
    if (control && !final) return fail(protocolError);
    if (opcode === 0 && !inMessage) return fail(protocolError);
    if ((opcode === 1 || opcode === 2) && inMessage) return fail(protocolError);
    if (at + 1 >= bytes.length) break;
    const second = bytes[at + 1]!;
    if ((second & 0x80) === 0) return fail(protocolError);
    const length7 = second & 0x7f;
    if (control && length7 > 125) return fail(protocolError);
    const extended = length7 === 126 ? 2 : length7 === 127 ? 8 : 0;
    if (length7 === 127 && at + 2 < bytes.length && bytes[at + 2]! >= 0x80) {
      return fail(protocolError);
    }
    if (at + 2 + extended > bytes.length) break;
    let length = length7;
    if (length7 === 126) {
      length = bytes[at + 2]! * 256 + bytes[at + 3]!;
      if (length < 126) return fail(protocolError);
    } else if (length7 === 127) {
      length = 0;
      for (let index = 2; index < 10; index++) length = length * 256 + bytes[at + index]!;
      if (length < 0x1_0000) return fail(protocolError);
    }
    if (!control) {
      const continuing = opcode === 0;
      if (length > limits.maxFrameBytes) return fail(messageTooBig);
      if ((continuing ? messageBytes : 0) + length > limits.maxMessageBytes) {
        return fail(messageTooBig);
      }
      if ((continuing ? fragments : 0) + 1 > limits.maxFragments) return fail(messageTooBig);
    }
    const maskAt = at + 2 + extended;
    if (maskAt + 4 > bytes.length) break;
    const payloadAt = maskAt + 4;
    const available = Math.min(length, bytes.length - payloadAt);
    const payload = new Uint8Array(available);
    for (let index = 0; index < available; index++) {
      payload[index] = bytes[payloadAt + index]! ^ bytes[maskAt + (index & 3)]!;
    }
    if (control) {
      if (available < length) break;
      if (opcode !== 8) {
        events.push({ kind: "control", opcode, payload: [...payload] });
      } else if (length === 0) {
        events.push({ kind: "control", opcode, payload: [], closeCode: 1005 });
      } else {
        if (length === 1) return fail(protocolError);
        const code = payload[0]! * 256 + payload[1]!;
        if (!validCloseCode(code)) return fail(protocolError);
        if (!validUtf8(payload.subarray(2))) return fail(invalidPayload);
        events.push({ kind: "control", opcode, payload: [...payload], closeCode: code });
      }
    } else {
      if (opcode !== 0) {
        inMessage = true;
        messageOpcode = opcode;
        messageBytes = 0;
        fragments = 0;
        message = [];
        text = new TextDecoder("utf-8", { fatal: true });
      }
      fragments++;
      messageBytes += length;
      if (messageOpcode === 1) {
        // Fail fast: an invalid byte is an error as soon as it came, the frame whole or not.
        try {
          text.decode(payload, { stream: true });
        } catch {
          return fail(invalidPayload);
        }
      }
      if (available < length) break;
      for (const byte of payload) message.push(byte);
      if (final) {
        inMessage = false;
        if (messageOpcode === 1) {
          try {
            text.decode();
          } catch {
            return fail(invalidPayload);
          }
        }
        events.push({ kind: "message", opcode: messageOpcode, payload: message });
      }
    }
    at = payloadAt + length;
  }
  return events;
}
