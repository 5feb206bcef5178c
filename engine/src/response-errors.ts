/**
 * A response operation would pass a limit: staging, application header bytes or the total
 * response size. Thrown before anything of the response is sent, so nothing is truncated.
 */
export class ResponseLimitError extends Error {
  /** The name of the limit in `Limits`. */
  readonly limit: "stagingBytes" | "maxResponseHeaderBytes" | "maxResponseBytes";

  constructor(limit: ResponseLimitError["limit"], detail: string) {
    super(`corral: response over ${limit}: ${detail}`);
    this.name = "ResponseLimitError";
    this.limit = limit;
  }
}

/** The client disconnected (or a deadline closed the connection) before the bytes were sent. */
export class ClientGoneError extends Error {
  constructor(reason = "the client has gone") {
    super(`corral: ${reason}`);
    this.name = "ClientGoneError";
  }
}

/**
 * An exchange was used after its request was over: its request bytes and response draft belong to
 * later requests now, so the call is refused instead of reading or writing reused memory.
 */
export class StaleExchangeError extends Error {
  constructor(what: string) {
    super(`corral: ${what} used after its request was over`);
    this.name = "StaleExchangeError";
  }
}

/**
 * The request body is over its limit (`maxBodyBytes`, or `maxStreamedBodyBytes` for a body the
 * application streams). With the engine option `dispatchOversizedBodies` the request is still
 * dispatched, without its body: reading the body throws (or rejects with) this error, which says
 * its own status (`httpStatus` 413) so the application answers it like any error it maps, and the
 * connection closes after that answer.
 */
export class BodyTooLargeError extends Error {
  /** The limit the body is over. */
  readonly limit: "maxBodyBytes" | "maxStreamedBodyBytes";
  /** The limit's value in bytes. */
  readonly limitBytes: number;
  /** RFC 9110 §15.5.14: 413 Content Too Large. */
  readonly httpStatus = 413;

  constructor(limit: BodyTooLargeError["limit"], limitBytes: number) {
    super(`the request body is over ${limit} (${limitBytes} bytes)`);
    this.name = "BodyTooLargeError";
    this.limit = limit;
    this.limitBytes = limitBytes;
  }
}
