import {
  type AnyContext,
  isTokenCode,
  middleware,
  optionNames,
  refuseUnknownOptions,
} from "corral";

const corsOptionNames = optionNames<CorsOptions>({
  origin: true,
  credentials: true,
  methods: true,
  allowHeaders: true,
  exposeHeaders: true,
  maxAgeSeconds: true,
});

/** Options of `cors()`. */
export interface CorsOptions {
  /**
   * The origins allowed, matched exactly (`"https://app.example"`: scheme, host and port), or a
   * function that decides. Each must be written as browsers send it in `Origin` (lower case, no
   * default port, no path or trailing slash): anything else is a `TypeError` here, since it could
   * never match. `"null"` is never allowed (sandboxed frames and `file:` pages all send it). `"*"`
   * allows any origin without credentials.
   */
  readonly origin: string | readonly string[] | ((origin: string, ctx: AnyContext) => boolean);
  /** Sends `Access-Control-Allow-Credentials: true` (cookies, HTTP auth); never with `"*"`. */
  readonly credentials?: boolean;
  /** Methods a preflight allows; GET, HEAD, POST, PUT, PATCH, DELETE by default. */
  readonly methods?: readonly string[];
  /**
   * Request headers a preflight allows. By default those the preflight asks for (reflected once
   * checked to be a list of header names): the origin is what is checked, not the headers.
   */
  readonly allowHeaders?: readonly string[];
  /** Response headers scripts may read (`Access-Control-Expose-Headers`). */
  readonly exposeHeaders?: readonly string[];
  /** How long a browser caches a preflight (`Access-Control-Max-Age`); 600 s by default. */
  readonly maxAgeSeconds?: number;
}

const defaultMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/**
 * CORS (the Fetch standard's CORS protocol) for the origins allowed. Every answer carries
 * `Vary: Origin`; an answer to an allowed origin carries `Access-Control-Allow-Origin` with that
 * origin (never an arbitrary one reflected, never `null`). Headers are set in `before`, so
 * errors (400, 404, 405, 422, 429, 500) carry them too. A preflight (`OPTIONS` with `Origin` and
 * `Access-Control-Request-Method`) is answered 204 here with the methods, headers and an
 * explicit `Access-Control-Max-Age`; the route is not run.
 *
 * @example
 * app.use(cors({ origin: ["https://app.example"], credentials: true }));
 */
export function cors(options: CorsOptions) {
  refuseUnknownOptions(options, corsOptionNames, "cors()");
  const allows = originMatcher(options);
  const credentials = options.credentials === true;
  const methods = (options.methods ?? defaultMethods).join(", ");
  const allowHeaders = options.allowHeaders?.join(", ");
  const exposeHeaders = options.exposeHeaders?.join(", ");
  const maxAge = options.maxAgeSeconds ?? 600;
  if (!Number.isSafeInteger(maxAge) || maxAge < 0) {
    throw new TypeError(`corral: cors maxAgeSeconds must be a whole number >= 0, got ${maxAge}`);
  }
  const anyOrigin = options.origin === "*";
  if (anyOrigin && credentials) {
    throw new TypeError('corral: cors origin "*" cannot be combined with credentials');
  }
  return middleware({
    before(ctx) {
      const response = ctx.response;
      if (!anyOrigin) response.header("Vary", "Origin");
      const origin = ctx.request.header("origin");
      if (origin === undefined || origin === "null" || !allows(origin, ctx)) return;
      response.header("Access-Control-Allow-Origin", anyOrigin ? "*" : origin);
      if (credentials) response.header("Access-Control-Allow-Credentials", "true");
      const requestedMethod = ctx.request.header("access-control-request-method");
      if (ctx.request.method !== "OPTIONS" || requestedMethod === undefined) {
        if (exposeHeaders !== undefined) {
          response.header("Access-Control-Expose-Headers", exposeHeaders);
        }
        return;
      }
      response.header("Access-Control-Allow-Methods", methods);
      const headers =
        allowHeaders ?? reflectedHeaders(ctx.request.header("access-control-request-headers"));
      if (headers !== undefined) response.header("Access-Control-Allow-Headers", headers);
      response.header("Access-Control-Max-Age", String(maxAge));
      response.header("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers");
      response.setStatus(204);
      return "stop";
    },
  });
}

function originMatcher(options: CorsOptions): (origin: string, ctx: AnyContext) => boolean {
  const origin = options.origin;
  if (typeof origin === "function") return origin;
  if (origin === "*") return () => true;
  const list = typeof origin === "string" ? [origin] : origin;
  for (const entry of list) checkOrigin(entry);
  const allowed = new Set(list);
  return (candidate) => allowed.has(candidate);
}

/**
 * Throws unless `entry` is an origin as a browser serializes it in `Origin` (the Fetch standard;
 * RFC 6454 §6.2): lower-case scheme and host, no default port, no path, query, fragment or
 * spaces. Anything else would never match, and the origin would be refused without a word.
 * `"null"` is refused: sandboxed frames and `file:` pages all send it. A scheme the URL standard
 * gives an opaque origin (`chrome-extension://id`, `capacitor://localhost`) is taken as
 * `scheme://host`, as browsers send it.
 */
function checkOrigin(entry: string): void {
  if (entry === "null") {
    throw new TypeError(
      'corral: cors origin "null" is never allowed (sandboxed frames and file: pages all send it)',
    );
  }
  const serialized = serializedOrigin(entry);
  if (serialized === entry) return;
  const hint = serialized === undefined ? "" : ` (a browser sends ${JSON.stringify(serialized)})`;
  throw new TypeError(
    `corral: cors origin ${JSON.stringify(entry)} is not an origin like "https://app.example"${hint}`,
  );
}

/** The origin a browser would send for a page at `entry`, or `undefined` when it has none. */
function serializedOrigin(entry: string): string | undefined {
  if (!URL.canParse(entry)) return undefined;
  const url = new URL(entry);
  if (url.origin !== "null") return url.origin;
  if (url.host === "" || url.username !== "" || url.password !== "") return undefined;
  return `${url.protocol}//${url.host}`.toLowerCase();
}

/** The requested header names, when they are a well-formed list of tokens (else none). */
function reflectedHeaders(requested: string | undefined): string | undefined {
  if (requested === undefined) return undefined;
  for (let index = 0; index < requested.length; index++) {
    const code = requested.charCodeAt(index);
    if (!isTokenCode(code) && code !== 0x2c && code !== 0x20 && code !== 0x09) return undefined;
  }
  return requested;
}
