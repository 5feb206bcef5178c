import { type Io, middleware } from "corral";

/**
 * The local `requestId` adds: 16 lowercase hex digits.
 *
 * @example
 * ctx.response.text(200, `request ${ctx.locals.requestId}`);
 */
export interface RequestIdLocals {
  requestId: string;
}

/**
 * The response header that carries the id, as most proxies and tracing tools name it.
 *
 * @example
 * response.headers.get(requestIdHeader);
 */
export const requestIdHeader = "X-Request-Id";

const idBytes = 8;

/**
 * Gives every request an id from the App's `Io` randomness (64 bits: collisions are negligible
 * for correlating logs), as the typed local `requestId` and the `X-Request-Id` response header.
 * An id the client sends is not taken over: it would be unvalidated input in the server's logs.
 * A header middleware sets in `before` is kept on every answer, mapped errors included.
 *
 * @example
 * const app = new App({ io }).use(requestId(io));
 * app.route("GET", "/", (ctx) => ctx.response.text(200, ctx.locals.requestId));
 */
export function requestId(io: Io) {
  return middleware<RequestIdLocals>({
    before(ctx) {
      const id = Buffer.from(io.randomBytes(new Uint8Array(idBytes))).toString("hex");
      ctx.locals.requestId = id;
      ctx.response.header(requestIdHeader, id);
    },
  });
}
