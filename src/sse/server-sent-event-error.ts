/**
 * Why a server-sent event could not be encoded.
 *
 * - `invalidEventName`: the `event` name holds a CR or LF, which would end its line early.
 * - `invalidId`: the `id` holds a CR, LF or NUL, or is a number that is not a non-negative safe
 *   integer.
 * - `invalidRetry`: `retry` is not a non-negative safe integer.
 * - `loneSurrogate`: some text holds an unpaired UTF-16 surrogate, which UTF-8 cannot encode.
 *
 * @example
 * const reason: ServerSentEventErrorReason = "invalidId";
 */
export type ServerSentEventErrorReason =
  | "invalidEventName"
  | "invalidId"
  | "invalidRetry"
  | "loneSurrogate";

/**
 * Thrown by the server-sent event encoders when a field cannot be written as given. Nothing is
 * ever stripped or replaced quietly: a frame is either encoded whole and exactly, or this is
 * thrown and nothing is written.
 *
 * @example
 * try {
 *   encodeServerSentEvent({ id: "a\nb", data: "x" });
 * } catch (error) {
 *   if (error instanceof ServerSentEventError) console.log(error.reason); // "invalidId"
 * }
 */
export class ServerSentEventError extends Error {
  override readonly name = "ServerSentEventError";
  /** Why the event could not be encoded. */
  readonly reason: ServerSentEventErrorReason;

  /**
   * @example
   * throw new ServerSentEventError("invalidRetry", "retry must be a non-negative integer");
   */
  constructor(reason: ServerSentEventErrorReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
