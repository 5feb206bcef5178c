import {
  type CookieOptions,
  DecodeError,
  decodeText,
  formDecodeInto,
  percentDecodeInto,
  type RequestView,
} from "corral";
import { parseImfFixdate } from "./http-date.ts";

/** A request the cookies example cannot act on; answered 400 with `{"error": message}`. */
export class CookieRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CookieRequestError";
  }
}

/** What `POST /cookies/:name` asked for: the value and the expiry attributes. */
export interface CookieRequest {
  readonly value: string;
  readonly options: CookieOptions;
}

// RFC 6265 §6.1: browsers keep cookies of at least 4096 bytes (name, value and attributes), so a
// longer value could not be stored anyway (and `setCookie` refuses a name and value over 4096
// bytes together, answered 400 like any invalid cookie).
const maxValueBytes = 4096;

/**
 * Reads `value`, `maxAge` and `expires` from the query or, when absent there, from a URL-encoded
 * form body. Every cookie gets `Path=/`, so it is sent to every path of the site and a later
 * `DELETE` (also `Path=/`) replaces this very cookie (RFC 6265 §5.3 step 11).
 */
export function readCookieRequest(request: RequestView): CookieRequest {
  const value = parameter(request, "value");
  if (value === undefined) throw new CookieRequestError("missing value (query or form field)");
  const maxAge = parameter(request, "maxAge");
  const expires = parameter(request, "expires");
  return {
    value,
    options: {
      path: "/",
      ...(maxAge === undefined ? {} : { maxAge: parseMaxAge(maxAge) }),
      ...(expires === undefined ? {} : { expires: parseExpires(expires) }),
    },
  };
}

/** The decoded text of the first parameter called `name`: the query's, else the form's. */
function parameter(request: RequestView, name: string): string | undefined {
  const inQuery = request.queryValueRaw(name);
  if (inQuery !== undefined) return decode(name, () => percentDecodeInto(inQuery, buffer()));
  if (request.body.length === 0) return undefined;
  const inForm = request.form().firstRaw(name);
  if (inForm === undefined) return undefined;
  return decode(name, () => formDecodeInto(inForm.valueRaw, buffer()));
}

function buffer(): Uint8Array {
  return new Uint8Array(maxValueBytes);
}

function decode(name: string, decodeBytes: () => Uint8Array): string {
  try {
    return decodeText(decodeBytes());
  } catch (error) {
    if (error instanceof DecodeError) throw new CookieRequestError(`${name}: ${error.message}`);
    throw error;
  }
}

function parseMaxAge(text: string): number {
  // RFC 6265 §5.2.2: delta-seconds, here with an optional minus (zero or less expires the cookie
  // at once); written back as the header's digits by setCookie.
  const seconds = /^-?\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(seconds)) {
    throw new CookieRequestError(`maxAge must be a whole number of seconds, got "${text}"`);
  }
  return seconds;
}

function parseExpires(text: string): Date {
  if (/^\d{1,16}$/.test(text)) return new Date(Number(text));
  const date = parseImfFixdate(text);
  if (date === undefined) {
    throw new CookieRequestError(
      `expires must be an HTTP-date such as "Wed, 21 Oct 2026 07:28:00 GMT" or milliseconds since the epoch, got "${text}"`,
    );
  }
  return date;
}
