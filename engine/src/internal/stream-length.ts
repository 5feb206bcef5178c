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

/**
 * Throws unless a stream of `streamed` bytes may take `adding` more: within `limit`
 * (`maxResponseBytes`) and within its declared length (`declared`, -1 when none).
 */
export function checkStreamGrowth(
  streamed: number,
  adding: number,
  declared: number,
  limit: number,
): void {
  if (streamed + adding > limit) {
    throw new ResponseLimitError(
      "maxResponseBytes",
      `the stream would reach ${streamed + adding} bytes, over ${limit}`,
    );
  }
  if (declared >= 0 && streamed + adding > declared) {
    throw new TypeError(
      `corral: the stream would reach ${streamed + adding} bytes, over its declared ${declared}`,
    );
  }
}
