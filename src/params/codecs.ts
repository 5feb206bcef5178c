import { DecodeError } from "./decode-error.ts";

const percentSign = 0x25;
const plusSign = 0x2b;
const space = 0x20;
const largestByte = 0xff;
const largestAscii = 0x7f;

// `ignoreBOM: true` keeps a leading U+FEFF: it is data in a value, not a marker to strip
// (WHATWG URL §5.1 decodes form values with "UTF-8 decode without BOM").
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The value of a hex digit (RFC 3986 §2.1 HEXDIG, either case), or -1. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

// A string is raw request text: each character is one byte (ASCII, or Latin-1 for bytes of a
// form body read as Latin-1), so its code is the byte value. Strings and byte arrays have a loop
// each: one loop reading either paid a type check on every character.

function decodeInto(raw: string | Uint8Array, buffer: Uint8Array, plusByte: number): Uint8Array {
  const written =
    typeof raw === "string"
      ? decodeStringInto(raw, buffer, plusByte)
      : decodeBytesInto(raw, buffer, plusByte);
  return buffer.subarray(0, written);
}

function decodeStringInto(raw: string, buffer: Uint8Array, plusByte: number): number {
  const length = raw.length;
  let read = 0;
  let written = 0;
  while (read < length) {
    let byte = raw.charCodeAt(read);
    if (byte === percentSign) {
      byte = escapedByte(
        read + 2 < length ? raw.charCodeAt(read + 1) : -1,
        raw.charCodeAt(read + 2),
        read,
      );
      read += 3;
    } else {
      if (byte > largestByte) throw outOfRange(byte, read);
      if (byte === plusSign) byte = plusByte;
      read += 1;
    }
    if (written === buffer.length) throw tooSmall(buffer.length);
    buffer[written++] = byte;
  }
  return written;
}

function decodeBytesInto(raw: Uint8Array, buffer: Uint8Array, plusByte: number): number {
  const length = raw.length;
  let read = 0;
  let written = 0;
  while (read < length) {
    let byte = raw[read]!;
    if (byte === percentSign) {
      byte = escapedByte(read + 2 < length ? raw[read + 1]! : -1, raw[read + 2]!, read);
      read += 3;
    } else {
      if (byte === plusSign) byte = plusByte;
      read += 1;
    }
    if (written === buffer.length) throw tooSmall(buffer.length);
    buffer[written++] = byte;
  }
  return written;
}

/** The byte of `%HL` at `offset` (`high` -1 when the text ends before two digits). */
function escapedByte(high: number, low: number, offset: number): number {
  const highValue = high < 0 ? -1 : hexValue(high);
  const lowValue = highValue < 0 ? -1 : hexValue(low);
  if (lowValue < 0) {
    throw new DecodeError("malformedEscape", `"%" at offset ${offset} needs two hex digits`);
  }
  return (highValue << 4) | lowValue;
}

function outOfRange(code: number, offset: number): DecodeError {
  return new DecodeError(
    "characterOutOfRange",
    `raw text holds U+${code.toString(16).toUpperCase()} at offset ${offset}; raw text is bytes`,
  );
}

function tooSmall(capacity: number): DecodeError {
  return new DecodeError("bufferTooSmall", `decoded value needs more than ${capacity} bytes`);
}

/**
 * Decodes `%HH` escapes of a raw query value (RFC 3986 §2.1) into `buffer` and returns the view
 * `buffer.subarray(0, n)`. A `+` stays `+`; `%2B` gives `+`. Nothing is allocated but the view.
 *
 * A string `raw` is raw request text, one byte per character (ASCII or Latin-1).
 *
 * @throws {DecodeError} `malformedEscape` for a `%` without two hex digits, `bufferTooSmall` when
 * the result does not fit (never a truncated result), `characterOutOfRange` for a character above
 * U+00FF in a string.
 *
 * @example
 * const buffer = new Uint8Array(64);
 * const bytes = percentDecodeInto("caf%C3%A9+bar", buffer);
 * decodeText(bytes); // "café+bar"
 */
export function percentDecodeInto(raw: string | Uint8Array, buffer: Uint8Array): Uint8Array {
  return decodeInto(raw, buffer, plusSign);
}

/**
 * Decodes an `application/x-www-form-urlencoded` value (WHATWG URL §5.1): `+` becomes a space,
 * then `%HH` escapes are decoded, so `%2B` gives `+`. Writes into `buffer` and returns the view
 * `buffer.subarray(0, n)`. Nothing is allocated but the view.
 *
 * @throws {DecodeError} as {@link percentDecodeInto} does.
 *
 * @example
 * const buffer = new Uint8Array(64);
 * decodeText(formDecodeInto("a+b%2Bc", buffer)); // "a b+c"
 */
export function formDecodeInto(raw: string | Uint8Array, buffer: Uint8Array): Uint8Array {
  return decodeInto(raw, buffer, space);
}

/**
 * Decodes UTF-8 bytes to a string. Invalid UTF-8 is an error, never U+FFFD; a leading byte
 * order mark is kept as data.
 *
 * @throws {DecodeError} `invalidUtf8` when the bytes are not well-formed UTF-8.
 *
 * @example
 * decodeText(percentDecodeInto("%E2%82%AC", new Uint8Array(8))); // "€"
 */
export function decodeText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new DecodeError("invalidUtf8", "decoded bytes are not valid UTF-8");
  }
}

/**
 * Decodes a raw query value as {@link percentDecodeInto} does, into `buffer`, and returns the
 * text: `decodeText(percentDecodeInto(raw, buffer))` in one call, with the same limit and the same
 * errors. A value with no escape and only ASCII characters (most are) is its own decoding: it is
 * returned as it is, after the same size check, with no bytes copied and no UTF-8 pass.
 *
 * @throws {DecodeError} as {@link percentDecodeInto} and {@link decodeText} do.
 *
 * @example
 * const name = ctx.request.query().firstRaw("name");
 * const text = name ? percentDecodeText(name.valueRaw, new Uint8Array(256)) : "";
 */
export function percentDecodeText(raw: string | Uint8Array, buffer: Uint8Array): string {
  if (typeof raw === "string" && isOwnDecoding(raw, buffer, false)) return raw;
  return decodeText(percentDecodeInto(raw, buffer));
}

/**
 * Decodes an `application/x-www-form-urlencoded` value as {@link formDecodeInto} does, into
 * `buffer`, and returns the text: `decodeText(formDecodeInto(raw, buffer))` in one call, with the
 * same limit and errors. A value with no escape, no `+` and only ASCII characters is returned as
 * it is, after the same size check.
 *
 * @throws {DecodeError} as {@link formDecodeInto} and {@link decodeText} do.
 *
 * @example
 * for (const entry of ctx.request.form()) {
 *   const value = formDecodeText(entry.valueRaw, scratch); // "a+b" gives "a b"
 * }
 */
export function formDecodeText(raw: string | Uint8Array, buffer: Uint8Array): string {
  if (typeof raw === "string" && isOwnDecoding(raw, buffer, true)) return raw;
  return decodeText(formDecodeInto(raw, buffer));
}

/**
 * Whether decoding `raw` would give `raw` back: no `%`, no `+` where it means a space, nothing
 * above ASCII (a byte of a UTF-8 sequence, to be validated), and it fits in `buffer` (a longer
 * value without escapes is the slow path's `bufferTooSmall`). Checking costs a loop over the
 * characters; the copy, the view over the buffer and the UTF-8 decoder's call it spares cost
 * several times that on a short value.
 */
function isOwnDecoding(raw: string, buffer: Uint8Array, plusIsSpace: boolean): boolean {
  const length = raw.length;
  if (length > buffer.length) return false;
  for (let index = 0; index < length; index++) {
    const code = raw.charCodeAt(index);
    if (code === percentSign || code > largestAscii || (plusIsSpace && code === plusSign)) {
      return false;
    }
  }
  return true;
}

/**
 * The explicit decode operations, grouped as `params.*`. Each writes into a caller buffer.
 *
 * @example
 * const buffer = new Uint8Array(256);
 * const name = ctx.request.query().firstRaw("name");
 * const text = name ? decodeText(params.percentDecodeInto(name.valueRaw, buffer)) : "";
 */
export const params = Object.freeze({
  percentDecodeInto,
  formDecodeInto,
  percentDecodeText,
  formDecodeText,
});
