// Writing ASCII text and numbers straight into byte buffers, without making strings.

/** Encodes a Latin-1/ASCII string into bytes once, for pre-built protocol text. */
export function asciiBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let index = 0; index < text.length; index++) bytes[index] = text.charCodeAt(index);
  return bytes;
}

/**
 * Bun's native Latin-1 encoding of a string into a byte range (Node's
 * `buffer.latin1Write(text, offset, length)`), on any `Uint8Array`; undefined where the runtime
 * lacks it.
 */
const nativeLatin1Write = (
  Buffer.prototype as unknown as {
    readonly latin1Write?: (
      this: Uint8Array,
      text: string,
      offset: number,
      length: number,
    ) => number;
  }
).latin1Write;

/**
 * Texts at least this long are written by one native call (about 25 ns whatever the length);
 * shorter ones by a loop (about a nanosecond a character, and no call). Counted with
 * bench/instructions.ts, two header values of 35 and 36 characters cost as many instructions
 * either way (the loop's 700 against the calls' 765 in Bun's code), so the call is kept for
 * longer text: a cookie, a policy, a long `Cache-Control`.
 */
const nativeWriteLength = 64;

/**
 * Writes a string whose characters are all below 256 at `offset`; returns the new offset. The
 * caller has checked that `target` has the room.
 */
export function writeLatin1(target: Uint8Array, offset: number, text: string): number {
  const length = text.length;
  if (length >= nativeWriteLength && nativeLatin1Write !== undefined) {
    nativeLatin1Write.call(target, text, offset, length);
    return offset + length;
  }
  for (let index = 0; index < length; index++) target[offset + index] = text.charCodeAt(index);
  return offset + length;
}

/** Writes a non-negative integer in decimal at `offset`; returns the new offset. */
export function writeDecimal(target: Uint8Array, offset: number, value: number): number {
  if (value < 10) {
    target[offset] = 0x30 + value;
    return offset + 1;
  }
  if (value <= 0x7fffffff) {
    // In 32-bit integers (every body length a response stages): `| 0` divides without floats.
    let digits = 1;
    for (let rest = value; rest >= 10; rest = (rest / 10) | 0) digits++;
    let rest = value;
    for (let index = offset + digits - 1; index >= offset; index--) {
      const next = (rest / 10) | 0;
      target[index] = 0x30 + rest - next * 10;
      rest = next;
    }
    return offset + digits;
  }
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = value;
  for (let index = offset + digits - 1; index >= offset; index--) {
    target[index] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return offset + digits;
}

const hexDigits = asciiBytes("0123456789abcdef");

/** How many hex digits `value` needs. */
export function hexLength(value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 16; rest = Math.floor(rest / 16)) digits++;
  return digits;
}

/** Writes a non-negative integer in lower-case hex at `offset`; returns the new offset. */
export function writeHex(target: Uint8Array, offset: number, value: number): number {
  const digits = hexLength(value);
  let rest = value;
  for (let index = offset + digits - 1; index >= offset; index--) {
    target[index] = hexDigits[rest % 16]!;
    rest = Math.floor(rest / 16);
  }
  return offset + digits;
}

/**
 * Bun's native Latin-1 decoding of a byte range (Node's `buffer.latin1Slice(start, end)`), which
 * works on any `Uint8Array`; undefined where the runtime lacks it.
 */
const nativeLatin1Slice = (
  Buffer.prototype as unknown as {
    readonly latin1Slice?: (this: Uint8Array, start: number, end: number) => string;
  }
).latin1Slice;

/**
 * Makes a string of bytes `[start, end)`, reading them as Latin-1 (header text is not UTF-8).
 * One native call: a JavaScript loop appending `String.fromCharCode` made a rope that had to be
 * flattened when first read, and an 8-byte value cost about 150 ns against 55, a 20-byte one
 * about 300 against 50-100 (a `Buffer` view and `toString`, for longer ones, about 150-200).
 */
export function latin1String(bytes: Uint8Array, start: number, end: number): string {
  if (nativeLatin1Slice !== undefined) return nativeLatin1Slice.call(bytes, start, end);
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("latin1");
}

/**
 * Like `latin1String`, but returns `previous` when the bytes spell it: requests on a connection
 * tend to repeat their path and query, and comparing bytes is cheaper than making a string.
 */
export function latin1StringReusing(
  bytes: Uint8Array,
  start: number,
  end: number,
  previous: string,
): string {
  const length = end - start;
  if (previous.length === length) {
    let index = 0;
    while (index < length && previous.charCodeAt(index) === bytes[start + index]) index++;
    if (index === length) return previous;
  }
  return latin1String(bytes, start, end);
}

/** Copies `source[from, to)` to `target` at `offset`; a loop for short runs avoids a subarray. */
export function copyBytes(
  source: Uint8Array,
  from: number,
  to: number,
  target: Uint8Array,
  offset: number,
): void {
  const length = to - from;
  if (length > 64) {
    target.set(source.subarray(from, to), offset);
    return;
  }
  for (let index = 0; index < length; index++) target[offset + index] = source[from + index]!;
}

const textEncoder = new TextEncoder();

const nativeUtf8Write = (
  Buffer.prototype as unknown as {
    readonly utf8Write?: (this: Uint8Array, text: string, offset: number, length: number) => number;
  }
).utf8Write;

/**
 * Encodes `text` as UTF-8 at `offset`, at most `room` bytes (whole characters only), and returns
 * the bytes written. One native call of about 15-20 ns for text up to 60 characters, where
 * a loop over the characters takes about 1 ns each and `TextEncoder.encodeInto` with the
 * subarray it needs about 40 ns (measured on 30 November). `room` of three bytes a UTF-16 unit
 * always holds all of it.
 */
export function writeUtf8(target: Uint8Array, offset: number, text: string, room: number): number {
  if (nativeUtf8Write !== undefined) return nativeUtf8Write.call(target, text, offset, room);
  return textEncoder.encodeInto(text, target.subarray(offset, offset + room)).written;
}
