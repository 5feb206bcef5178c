import { ResponseLimitError } from "../response-errors.ts";

// The rules of a stream's declared length (RFC 9112 §6.2: `Content-Length` instead of chunked
// framing), apart from the framing that applies them.

/** Throws unless `bytes` may be declared: a whole number, within `limit`, not below `streamed`. */
export function checkDeclaredLength(bytes: number, limit: number, streamed: number): void {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new TypeError(
      `corral: a stream's declared length must be a whole number of bytes, got ${bytes}`,
    );
  }
  if (bytes > limit) {
    throw new ResponseLimitError(
      "maxResponseBytes",
      `a declared length of ${bytes} bytes is over ${limit}`,
    );
  }
  if (streamed > bytes) {
    throw new TypeError(
      `corral: ${streamed} bytes are written already, over the declared ${bytes}`,
    );
  }
}

/** Throws unless `sendFile` may send this file range on a stream of declared length `declared`. */
export function checkFileRange(
  declared: number,
  descriptor: number,
  position: number,
  length: number,
): void {
  if (declared < 0) throw new TypeError("corral: sendFile() needs a stream of declared length");
  if (![descriptor, position, length].every((value) => Number.isSafeInteger(value) && value >= 0)) {
    throw new TypeError("corral: sendFile() takes a descriptor, a position and a length >= 0");
  }
}
