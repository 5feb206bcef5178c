import { type AnyContext, middleware, optionNames, refuseUnknownOptions } from "corral";

const requestIdOptionNames = optionNames<RequestIdOptions>({
  header: true,
  trustIncoming: true,
  generate: true,
});

/** The local `requestId()` adds. */
export interface RequestIdLocals {
  /** This request's id: the trusted sender's, or a new UUIDv7. */
  requestId: string;
}

/** Options of `requestId()`. */
export interface RequestIdOptions {
  /** The header read and written; `X-Request-Id` by default. */
  readonly header?: string;
  /**
   * Whether an incoming id is kept (when valid): only when the sender is trusted, a proxy or
   * gateway of yours. `false` by default: a client's id would be unvalidated input in your logs.
   */
  readonly trustIncoming?: boolean | ((ctx: AnyContext) => boolean);
  /** Makes a new id; `Bun.randomUUIDv7()` by default (time-ordered, so logs sort by it). */
  readonly generate?: () => string;
}

/** Longest incoming id kept. */
export const maxRequestIdLength = 128;

// Letters, digits and `-._~:/+=@`: enough for UUIDs, ULIDs, base64 and trace ids, and nothing
// that could break a log line, a header or a JSON string.
const safeCharacters = new Uint8Array(128);
for (const character of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/+=@") {
  safeCharacters[character.charCodeAt(0)] = 1;
}

/**
 * Whether `value` is an id `requestId()` keeps: 1 to 128 characters of the safe set.
 *
 * @example
 * isValidRequestId("0192f5a4-7c3e-7aa1-b2c4-3f1e2d3c4b5a"); // true
 * isValidRequestId("a b"); // false
 */
export function isValidRequestId(value: string): boolean {
  if (value.length === 0 || value.length > maxRequestIdLength) return false;
  for (let index = 0; index < value.length; index++) {
    if (safeCharacters[value.charCodeAt(index)] !== 1) return false;
  }
  return true;
}

/**
 * Gives every request an id: `ctx.locals.requestId`, the `X-Request-Id` header of every answer
 * (set in `before`, so mapped errors and streams carry it too) and the `reqId` of `logger()`
 * lines. A valid incoming id is kept only when `trustIncoming` says the sender is trusted.
 *
 * @example
 * const app = new App({ shared: {} }).use(requestId({ trustIncoming: true }));
 * app.get("/", (ctx) => ctx.response.text(200, ctx.locals.requestId));
 */
export function requestId(options: RequestIdOptions = {}) {
  refuseUnknownOptions(options, requestIdOptionNames, "requestId()");
  const header = options.header ?? "X-Request-Id";
  const lowerHeader = header.toLowerCase();
  const trust = options.trustIncoming ?? false;
  const generate = options.generate ?? (() => Bun.randomUUIDv7());
  return middleware<RequestIdLocals>({
    before(ctx) {
      const incoming = ctx.request.header(lowerHeader);
      const trusted = typeof trust === "function" ? trust(ctx) : trust;
      const id =
        trusted && incoming !== undefined && isValidRequestId(incoming) ? incoming : generate();
      ctx.locals.requestId = id;
      ctx.response.header(header, id);
    },
  });
}
