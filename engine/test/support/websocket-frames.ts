/** Options of one client frame built for a test. */
export interface ClientFrameOptions {
  readonly final?: boolean;
  /** RSV1-3 as a 3-bit number. */
  readonly reserved?: number;
  /** False sends the frame unmasked (a protocol error from a client). */
  readonly masked?: boolean;
  /** Forces the 16- or 64-bit length form even for short payloads (not minimal). */
  readonly lengthForm?: 7 | 16 | 64;
  /** The masking key; fixed by default so tests are deterministic. */
  readonly mask?: readonly [number, number, number, number];
}

const encoder = new TextEncoder();

/** Builds a client-to-server frame (RFC 6455 §5.2), masked unless told otherwise. */
export function clientFrame(
  opcode: number,
  payload: Uint8Array | string = new Uint8Array(0),
  options: ClientFrameOptions = {},
): Uint8Array {
  const body = typeof payload === "string" ? encoder.encode(payload) : payload;
  const { final = true, reserved = 0, masked = true, mask = [0x37, 0xfa, 0x21, 0x3d] } = options;
  const form = options.lengthForm ?? (body.length < 126 ? 7 : body.length < 0x1_0000 ? 16 : 64);
  const lengthBytes = form === 7 ? 0 : form === 16 ? 2 : 8;
  const frame = new Uint8Array(2 + lengthBytes + (masked ? 4 : 0) + body.length);
  frame[0] = (final ? 0x80 : 0) | (reserved << 4) | opcode;
  frame[1] = (masked ? 0x80 : 0) | (form === 7 ? body.length : form === 16 ? 126 : 127);
  let at = 2;
  if (form === 16) {
    frame[2] = body.length >>> 8;
    frame[3] = body.length & 0xff;
    at = 4;
  } else if (form === 64) {
    const view = new DataView(frame.buffer);
    view.setBigUint64(2, BigInt(body.length));
    at = 10;
  }
  if (masked) {
    frame.set(mask, at);
    at += 4;
    for (let index = 0; index < body.length; index++) {
      frame[at + index] = body[index]! ^ mask[index & 3]!;
    }
  } else {
    frame.set(body, at);
  }
  return frame;
}

/** A close frame's payload: the code, then the reason as UTF-8 (or raw bytes). */
export function closePayload(code: number, reason: string | Uint8Array = ""): Uint8Array {
  const text = typeof reason === "string" ? encoder.encode(reason) : reason;
  const payload = new Uint8Array(2 + text.length);
  payload[0] = code >>> 8;
  payload[1] = code & 0xff;
  payload.set(text, 2);
  return payload;
}

/** Concatenates byte arrays. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const joined = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

/** One server frame read off the wire. */
export interface ServerFrame {
  readonly final: boolean;
  readonly opcode: number;
  readonly masked: boolean;
  readonly payload: Uint8Array;
}

/** Splits server bytes into whole frames; returns them and the bytes left over. */
export function readServerFrames(bytes: Uint8Array): {
  frames: ServerFrame[];
  rest: Uint8Array;
} {
  const frames: ServerFrame[] = [];
  let at = 0;
  while (bytes.length - at >= 2) {
    const first = bytes[at]!;
    const second = bytes[at + 1]!;
    let length = second & 0x7f;
    let header = 2;
    if (length === 126) {
      if (bytes.length - at < 4) break;
      length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
      header = 4;
    } else if (length === 127) {
      if (bytes.length - at < 10) break;
      length = Number(new DataView(bytes.buffer, bytes.byteOffset + at + 2, 8).getBigUint64(0));
      header = 10;
    }
    const masked = (second & 0x80) !== 0;
    if (masked) header += 4;
    if (bytes.length - at < header + length) break;
    frames.push({
      final: (first & 0x80) !== 0,
      opcode: first & 0x0f,
      masked,
      payload: bytes.slice(at + header, at + header + length),
    });
    at += header + length;
  }
  return { frames, rest: bytes.slice(at) };
}
