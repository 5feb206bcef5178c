/**
 * The closed set of engine errors. Each code has one row: the status it answers and the short
 * plain-text body sent. Every engine error closes the connection: after it, framing is unsure.
 */
export const engineErrors = {
  malformedRequest: { status: 400, message: "Bad Request: malformed request" },
  malformedChunkedBody: { status: 400, message: "Bad Request: malformed chunked body" },
  chunkExtensionTooLong: { status: 400, message: "Bad Request: chunk extension too long" },
  requestLineTooLong: { status: 414, message: "URI Too Long: request line too long" },
  headerSectionTooLarge: {
    status: 431,
    message: "Request Header Fields Too Large: header section too large",
  },
  tooManyHeaders: {
    status: 431,
    message: "Request Header Fields Too Large: too many header fields",
  },
  trailerSectionTooLarge: {
    status: 431,
    message: "Request Header Fields Too Large: trailer section too large",
  },
  bodyTooLarge: { status: 413, message: "Content Too Large: request body over the limit" },
  unsupportedTransferCoding: { status: 501, message: "Not Implemented: transfer coding" },
  connectNotImplemented: { status: 501, message: "Not Implemented: CONNECT (no tunnels)" },
  unsupportedVersion: { status: 505, message: "HTTP Version Not Supported" },
  unsupportedExpectation: { status: 417, message: "Expectation Failed" },
  headerTimeout: { status: 408, message: "Request Timeout: request head not received in time" },
  bodyTimeout: { status: 408, message: "Request Timeout: request body not received in time" },
  queueFull: { status: 503, message: "Service Unavailable: server busy, retry later" },
  requestTimeout: { status: 503, message: "Service Unavailable: request took too long" },
  handlerFailed: { status: 500, message: "Internal Server Error" },
} as const satisfies Record<string, { readonly status: number; readonly message: string }>;

/** The name of one engine error; counted by name in `stats().errors`. */
export type EngineErrorName = keyof typeof engineErrors;

/** Numeric codes for engine errors, as the pure parsers return them (0 and 1 are not errors). */
export const errorNames = Object.keys(engineErrors) as EngineErrorName[];

/** The numeric code of an error name; codes start at 2 so that 0 and 1 stay free for results. */
export const errorCode = Object.fromEntries(errorNames.map((name, index) => [name, index + 2])) as {
  readonly [N in EngineErrorName]: number;
};

/** The error name of a numeric code returned by a parser. */
export function errorNameOf(code: number): EngineErrorName {
  const name = errorNames[code - 2];
  if (name === undefined) throw new RangeError(`corral: no engine error has code ${code}`);
  return name;
}
