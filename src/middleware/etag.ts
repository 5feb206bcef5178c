import {
  evaluatePreconditions,
  HttpError,
  middleware,
  optionNames,
  parseHttpDate,
  refuseUnknownOptions,
} from "corral";

const etagOptionNames = optionNames<EtagOptions>({
  weak: true,
});

/** Options of `etag()`. */
export interface EtagOptions {
  /** Makes the content tags weak (`W/"..."`): equivalent, not byte-identical, content. */
  readonly weak?: boolean;
}

const noBody = new Uint8Array(0);

/**
 * Representation metadata a 304 leaves out (RFC 9110 §15.4.5): a cache would update its stored
 * response with them (RFC 9111 §4.3.4). ETag, Vary, Cache-Control, Expires, Content-Location
 * and Date stay, and so does Last-Modified, a validator. Content-Length the engine leaves out.
 */
const notModifiedOmits = ["Content-Type", "Content-Encoding", "Content-Language"] as const;

/**
 * The entity-tag of `body`: a 64-bit hash of the bytes and their length, so it changes with any
 * change of content (or of its content coding, which changes the bytes).
 *
 * @example
 * contentTag(new TextEncoder().encode("hello")); // '"…-5"'
 */
export function contentTag(body: Uint8Array, weak = false): string {
  const tag = `"${Bun.hash(body).toString(36)}-${body.length.toString(36)}"`;
  return weak ? `W/${tag}` : tag;
}

/**
 * Conditional GET and HEAD (RFC 9110 §13): a 200 with a drafted body gets a strong `ETag` of its
 * content unless the handler set one; then the request's preconditions are evaluated in the
 * order of §13.2.2 (`If-Match` failing is a 412, a matching `If-None-Match` a 304 without a body
 * and without `Content-Type`, `Content-Encoding` or `Content-Language`, §15.4.5;
 * `If-Modified-Since` against the handler's `Last-Modified`). Streams are left alone. For PUT,
 * PATCH and DELETE the handler must evaluate `If-Match` itself, before it changes anything
 * (`evaluatePreconditions`): an `after` hook runs too late for that. `use()` it before
 * `compress()`, so that the tag is of the bytes sent and changes with their coding (a HEAD is
 * coded as its GET, so it gets the GET's tag).
 *
 * @example
 * app.use(etag()).use(compress());
 */
export function etag(options: EtagOptions = {}) {
  refuseUnknownOptions(options, etagOptionNames, "etag()");
  const weak = options.weak === true;
  return middleware({
    after(ctx) {
      const response = ctx.response;
      // A stream first: once its handler finished it, the request is no longer readable.
      if (response.streaming || response.status !== 200) return;
      const method = ctx.request.method;
      if (method !== "GET" && method !== "HEAD") return;
      let tag = response.getHeader("etag");
      if (tag === undefined) {
        tag = contentTag(response.body, weak);
        response.header("ETag", tag);
      }
      const lastModifiedText = response.getHeader("last-modified");
      const lastModified =
        lastModifiedText === undefined ? undefined : parseHttpDate(lastModifiedText);
      const result = evaluatePreconditions(method, (name) => ctx.request.header(name), {
        etag: tag,
        ...(lastModified === undefined ? {} : { lastModified }),
      });
      if (result === "not-modified") {
        response.replaceBody(noBody);
        response.setStatus(304);
        for (const name of notModifiedOmits) response.removeHeader(name);
      } else if (result === "precondition-failed") {
        throw new HttpError(412, "Precondition Failed");
      }
    },
  });
}
