import { reasonPhrase } from "corral/engine";
import { HttpError } from "../http-error.ts";

/**
 * An error class that says how the App answers it, instead of being listed in the error mapper:
 * `httpStatus` (400-599), optionally `httpHeaders`, and `httpMessage`, the text the client reads
 * (by default the reason phrase, then the error's message for a 4xx; a 5xx says only its reason
 * phrase unless `httpMessage` is given, since a server error's message is not for the client).
 *
 * @example
 * class QuotaError extends Error implements StatusError {
 *   readonly httpStatus = 402;
 * }
 * // thrown from a handler: 402 "Payment Required: <message>"
 */
export interface StatusError {
  readonly httpStatus: number;
  readonly httpHeaders?: Readonly<Record<string, string>>;
  readonly httpMessage?: string;
}

/** How an error is answered: status, the client's message, headers and an optional JSON body. */
export interface ErrorAnswer {
  readonly status: number;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** The problem-details `detail` when it differs from `message` (no reason phrase before it). */
  readonly detail?: string;
}

const noHeaders: Readonly<Record<string, string>> = Object.freeze({});

/** The answer an error carries (an `HttpError`, a `StatusError`, a bad `%` escape), if any. */
export function answerOf(error: unknown): ErrorAnswer | undefined {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      message: error.message,
      headers: error.headers,
      body: error.body,
    };
  }
  if (isStatusError(error)) {
    const status = error.httpStatus;
    const reason = reasonPhrase(status) || "Error";
    const detail = error.httpMessage ?? (status < 500 ? messageOf(error) : undefined);
    const message = error.httpMessage ?? (detail === undefined ? reason : `${reason}: ${detail}`);
    return {
      status,
      message,
      headers: error.httpHeaders ?? noHeaders,
      ...(detail === undefined ? {} : { detail }),
    };
  }
  if (error instanceof URIError) {
    // decodeURIComponent on a route capture: the path's escapes were the client's.
    return {
      status: 400,
      message: "Bad Request: malformed percent-encoding in the path",
      headers: noHeaders,
    };
  }
  return undefined;
}

function isStatusError(error: unknown): error is StatusError {
  if (typeof error !== "object" || error === null) return false;
  const status = (error as { httpStatus?: unknown }).httpStatus;
  return Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
