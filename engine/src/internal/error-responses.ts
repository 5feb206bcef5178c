import { type EngineErrorName, engineErrors, errorNames } from "../errors.ts";
import type { Limits } from "../limits.ts";
import { asciiBytes } from "./ascii.ts";
import { statusLine } from "./status-lines.ts";

/** A pre-encoded engine error answer: the Date line goes between `prefix` and `suffix`. */
export interface ErrorResponse {
  readonly status: number;
  readonly prefix: Uint8Array;
  readonly suffix: Uint8Array;
  /** The same header lines without the body, for an answer to HEAD. */
  readonly suffixWithoutBody: Uint8Array;
}

/** Bytes an error answer may take in the output buffer, Date line included. */
export const errorResponseMaxBytes = 320;

/** Builds the one table of error answers for these limits (every code has a row by its type). */
export function buildErrorResponses(limits: Limits): Record<EngineErrorName, ErrorResponse> {
  const table = {} as Record<EngineErrorName, ErrorResponse>;
  for (const name of errorNames) {
    const { status, message } = engineErrors[name];
    const body = `${message}\n`;
    const retryAfter = status === 503 ? `Retry-After: ${limits.retryAfterSeconds}\r\n` : "";
    const headerLines =
      "Content-Type: text/plain; charset=utf-8\r\n" +
      `Content-Length: ${body.length}\r\n` +
      "Connection: close\r\n" +
      retryAfter +
      "\r\n";
    table[name] = {
      status,
      prefix: statusLine(status),
      suffix: asciiBytes(headerLines + body),
      suffixWithoutBody: asciiBytes(headerLines),
    };
  }
  return table;
}

/** Written straight to a socket when every connection slot is taken (no slot, no Date). */
export function cannedServerFullResponse(limits: Limits): Uint8Array {
  return cannedResponse(
    "503 Service Unavailable",
    "Service Unavailable: too many connections\n",
    `Retry-After: ${limits.retryAfterSeconds}\r\n`,
  );
}

/**
 * Written straight to a slow head's socket before it is closed to admit a new connection: made
 * once, its `Date` line (a 4xx must carry one, RFC 9110 §6.6.1) copied in at each use.
 */
export class CannedSlowHeadResponse {
  readonly #bytes: Uint8Array;
  readonly #dateAt: number;

  constructor(dateLineLength: number) {
    const statusLine = asciiBytes("HTTP/1.1 408 Request Timeout\r\n");
    const rest = cannedResponse("", `${engineErrors.headerTimeout.message}\n`, "").subarray(
      "HTTP/1.1 \r\n".length,
    );
    this.#bytes = new Uint8Array(statusLine.length + dateLineLength + rest.length);
    this.#bytes.set(statusLine, 0);
    this.#dateAt = statusLine.length;
    this.#bytes.set(rest, this.#dateAt + dateLineLength);
  }

  /** The answer with `dateLine` (`Date: ...\r\n`, of the length given at construction). */
  withDate(dateLine: Uint8Array): Uint8Array {
    this.#bytes.set(dateLine, this.#dateAt);
    return this.#bytes;
  }
}

function cannedResponse(status: string, body: string, extraLines: string): Uint8Array {
  return asciiBytes(
    `HTTP/1.1 ${status}\r\n` +
      "Content-Type: text/plain; charset=utf-8\r\n" +
      `Content-Length: ${body.length}\r\n` +
      extraLines +
      "Connection: close\r\n\r\n" +
      body,
  );
}
