/**
 * Why a decode operation failed.
 *
 * - `malformedEscape`: a `%` not followed by two hex digits (RFC 3986 §2.1).
 * - `bufferTooSmall`: the decoded bytes do not fit in the caller's buffer.
 * - `characterOutOfRange`: raw text held a character above U+00FF, so it was not raw bytes.
 * - `invalidUtf8`: decoded bytes are not well-formed UTF-8.
 * - `invalidJson`: a body read with `ctx.request.json()` is not JSON (RFC 8259).
 *
 * @example
 * const reason: DecodeErrorReason = "bufferTooSmall";
 */
export type DecodeErrorReason =
  | "malformedEscape"
  | "bufferTooSmall"
  | "characterOutOfRange"
  | "invalidUtf8"
  | "invalidJson";

/**
 * Thrown by the decode operations (`params.percentDecodeInto`, `params.formDecodeInto`,
 * `decodeText`) and by `ctx.request.text()` and `ctx.request.json()`. A handler may let it
 * propagate: the App answers it as a client error (400). Nothing is ever truncated or replaced
 * quietly: a decode either succeeds whole or throws this.
 *
 * @example
 * try {
 *   params.percentDecodeInto("%zz", new Uint8Array(8));
 * } catch (error) {
 *   if (error instanceof DecodeError) console.log(error.reason); // "malformedEscape"
 * }
 */
export class DecodeError extends Error {
  override readonly name = "DecodeError";
  /** The App answers it with this status (see `StatusError`). */
  readonly httpStatus = 400;
  /** Why the decode failed. */
  readonly reason: DecodeErrorReason;

  /**
   * @example
   * throw new DecodeError("bufferTooSmall", "decoded value needs more than 64 bytes");
   */
  constructor(reason: DecodeErrorReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
