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
