import type * as Zlib from "node:zlib";
import {
  type AnyContext,
  type ContentCoding,
  chooseContentCoding,
  evaluatePreconditions,
  middleware,
  optionNames,
  refuseUnknownOptions,
  type StreamEncoder,
  zlibStreamEncoder,
} from "corral";

const compressOptionNames = optionNames<CompressOptions>({
  thresholdBytes: true,
  codings: true,
  types: true,
  inlineMaxBytes: true,
  maxEncodedStreams: true,
});

/** Options of `compress()`. */
export interface CompressOptions {
  /** Bodies smaller than this many bytes are sent as they are; 1 KiB by default. */
  readonly thresholdBytes?: number;
  /** Codings offered, best first; zstd, br and gzip by default (ties go to the first). */
  readonly codings?: readonly ContentCoding[];
  /**
   * Media types compressed (without parameters; `text/*` covers a whole type, `+json` and
   * `+xml` suffixes count as JSON and XML). Already-compressed formats (images, video, zip) are
   * left out by default.
   */
  readonly types?: readonly string[];
  /**
   * Bodies up to this size are compressed on the event loop (well under a millisecond for gzip
   * and zstd at these levels); larger ones on the thread pool, so one large body never holds the
   * loop. 32 KiB by default.
   */
  readonly inlineMaxBytes?: number;
  /**
   * Streams encoded at once, at most (each holds a compressor's window); more are sent as they
   * are. 64 by default; 0 sends every stream uncompressed.
   */
  readonly maxEncodedStreams?: number;
}

const defaultTypes = [
  "text/*",
  "application/json",
  "application/javascript",
  "application/xml",
  "application/wasm",
  "image/svg+xml",
];

// Fast levels: a response is compressed per request, unlike a static asset compressed once.
let zlib: typeof Zlib | undefined;
/** node:zlib on first use, as the App's own `zlibModule` (this package sees only `corral`). */
function zlibModule(): typeof Zlib {
  zlib ??= require("node:zlib") as typeof Zlib;
  return zlib;
}

let brotliOptions: { params: Record<number, number> } | undefined;
/** Made on first use: the constants are node:zlib's, which is loaded only when needed. */
function brotliParameters() {
  brotliOptions ??= { params: { [zlibModule().constants.BROTLI_PARAM_QUALITY]: 4 } };
  return brotliOptions;
}
const gzipParameters = { level: 6 };
const zstdParameters = { level: 3 };

const optedOut = new WeakSet<object>();
/** Requests whose stream had its coding chosen (at its first use): too late to opt out. */
const streamCodingChosen = new WeakSet<object>();

/**
 * Sends this request's answer uncompressed (a per-route opt-out, e.g. for answers that carry
 * secrets next to attacker-chosen text, which compression would leak: BREACH). For a stream,
 * call it before its first write: after it, the coding is chosen and this is a `TypeError`.
 *
 * @example
 * app.get("/account", (ctx) => { skipCompression(ctx); ctx.response.json(200, account); });
 */
export function skipCompression(ctx: AnyContext): void {
  if (streamCodingChosen.has(ctx)) {
    throw new TypeError(
      "corral: skipCompression() after the stream's first write: compress() chose its coding then; call it before writing",
    );
  }
  optedOut.add(ctx);
}

/** Whether a Vary value names Accept-Encoding already (or `*`). */
function varies(vary: string | undefined): boolean {
  if (vary === undefined) return false;
  const lower = vary.toLowerCase();
  return lower.includes("accept-encoding") || lower.trim() === "*";
}

/**
 * Compresses drafted bodies with br, zstd or gzip (Bun's built-ins), as the client's
 * `Accept-Encoding` q-values prefer: only allowed media types over `thresholdBytes`; never a
 * 204, 304 or 206, a body already encoded, one under `Cache-Control: no-transform`, or a
 * request that called `skipCompression`. Adds `Vary: Accept-Encoding` to every answer whose type
 * it could compress, and suffixes a drafted `ETag` with the coding (`"v1"` → `"v1-br"`): a
 * strong tag changes with the coding (RFC 9110 §8.8.3), and `evaluatePreconditions` takes the
 * suffixed tag back for the handler's own (`If-Match`, `If-None-Match`). A 304 the handler made
 * gets the suffixed tag and the Vary back when the client's `If-None-Match` names that coded
 * form (§15.4.5). A HEAD is compressed as its GET would be, so it carries the same
 * `Content-Encoding`, `Content-Length`, `ETag` and `Vary` (§9.3.2); no body is sent. The
 * compressed bytes replace the body in the worker's staging (the compressor's output is
 * transient and never larger than the body). A stream of an allowed type is encoded as it is
 * written, and every `flush()` sends the encoded bytes of all written so far (SSE events arrive
 * as they are flushed); at most `maxEncodedStreams` at once, the others go as they are. A
 * stream's coding is chosen at its first write, so the headers and opt-out set before it count.
 *
 * @example
 * app.use(etag()).use(compress({ thresholdBytes: 2048 }));
 */
export function compress(options: CompressOptions = {}) {
  refuseUnknownOptions(options, compressOptionNames, "compress()");
  const threshold = options.thresholdBytes ?? 1024;
  const inlineMax = options.inlineMaxBytes ?? 32 * 1024;
  // zstd first: as small as br at these levels for a fraction of its CPU, where clients take it.
  const codings = options.codings ?? ["zstd", "br", "gzip"];
  const typeMatcher = compressibleTypes(options.types ?? defaultTypes);
  const maxStreams = options.maxEncodedStreams ?? 64;
  const encoders = new WeakMap<object, StreamEncoder>();
  let liveEncoders = 0;
  /**
   * The coding for this answer, after the checks every answer gets (and its Vary header). A HEAD
   * is coded as its GET: it gets the same header fields (RFC 9110 §9.3.2).
   */
  const codingFor = (ctx: AnyContext, status: number, contentType: string | undefined) => {
    const response = ctx.response;
    if (status < 200 || status === 204 || status === 206 || status === 304) return undefined;
    if (!typeMatcher(contentType)) return undefined;
    // One Vary line: an answer that varies by coding already (a precompressed file) says so.
    if (!varies(response.getHeader("vary"))) response.header("Vary", "Accept-Encoding");
    return chosenCoding(ctx, codings);
  };
  return middleware({
    before(ctx) {
      if (maxStreams === 0) return;
      ctx.response.encodeStream((status, contentType) => {
        streamCodingChosen.add(ctx);
        const coding = codingFor(ctx, status, contentType);
        if (coding === undefined || liveEncoders >= maxStreams) return undefined;
        liveEncoders++;
        const encoder = zlibStreamEncoder(coding, () => liveEncoders--);
        encoders.set(ctx, encoder);
        labelCoded(ctx.response, coding);
        return encoder;
      });
    },
    after(ctx) {
      const response = ctx.response;
      if (response.streaming) return response.endStreamEncoding();
      if (response.status === 304) return labelNotModified(ctx, codings);
      const body = response.body;
      const coding = codingFor(ctx, response.status, response.getHeader("content-type"));
      if (coding === undefined || body.length < threshold) return;
      if (body.length <= inlineMax) {
        useCompressed(ctx, coding, body.length, compressSync(coding, body));
        return;
      }
      return compressOffLoop(coding, body).then((compressed) =>
        useCompressed(ctx, coding, body.length, compressed),
      );
    },
    cleanup(ctx) {
      // An aborted stream's encoder is freed at once; an ended one is already closed.
      encoders.get(ctx)?.destroy();
    },
  });
}

/** The coding for this answer once its type and status allow one, or `undefined` for none. */
function chosenCoding(
  ctx: AnyContext,
  codings: readonly ContentCoding[],
): ContentCoding | undefined {
  const response = ctx.response;
  if (optedOut.has(ctx) || response.getHeader("content-encoding") !== undefined) return undefined;
  if (response.getHeader("cache-control")?.toLowerCase().includes("no-transform")) return undefined;
  const coding = chooseContentCoding(ctx.request.header("accept-encoding"), codings);
  return coding === undefined || coding === "identity" ? undefined : coding;
}

/** The tag of the form coded with `coding`: `"v1"` → `"v1-gzip"`, `W/"v1"` → `W/"v1-gzip"`. */
function codedTag(tag: string, coding: ContentCoding): string {
  return `${tag.slice(0, -1)}-${coding}"`;
}

/**
 * A 304 the handler drafted (after its own `evaluatePreconditions`) must carry the ETag and Vary
 * its 200 would have (RFC 9110 §15.4.5), but has no body or type to decide by. When the client's
 * `If-None-Match` names the coded form this request would get, the client holds that form of an
 * unchanged representation: its 200 was coded, so the 304 gets that tag and Vary. Otherwise (the
 * client holds the identity form, `*`, or only a date) the handler's tag stands as it is.
 */
function labelNotModified(ctx: AnyContext, codings: readonly ContentCoding[]): void {
  const response = ctx.response;
  const tag = response.getHeader("etag");
  const ifNoneMatch = ctx.request.header("if-none-match");
  if (tag === undefined || !tag.endsWith('"') || ifNoneMatch === undefined) return;
  if (ifNoneMatch.trim() === "*") return;
  const coding = chosenCoding(ctx, codings);
  if (coding === undefined) return;
  const coded = codedTag(tag, coding);
  // The list scan of §13.1.2 (weak comparison), as a GET with only this If-None-Match.
  const holds = (name: string) => (name === "if-none-match" ? ifNoneMatch : undefined);
  if (evaluatePreconditions("GET", holds, { etag: coded }) !== "not-modified") return;
  response.removeHeader("ETag");
  response.header("ETag", coded);
  if (!varies(response.getHeader("vary"))) response.header("Vary", "Accept-Encoding");
}

function useCompressed(
  ctx: AnyContext,
  coding: ContentCoding,
  originalLength: number,
  compressed: Uint8Array,
): void {
  if (compressed.length >= originalLength) return;
  ctx.response.replaceBody(compressed);
  labelCoded(ctx.response, coding);
}

/** `Content-Encoding`, and the handler's ETag suffixed with the coding (RFC 9110 §8.8.3). */
function labelCoded(response: AnyContext["response"], coding: ContentCoding): void {
  response.header("Content-Encoding", coding);
  const tag = response.getHeader("etag");
  if (tag?.endsWith('"')) {
    response.removeHeader("ETag");
    response.header("ETag", codedTag(tag, coding));
  }
}

function compressSync(coding: ContentCoding, body: Uint8Array): Uint8Array {
  if (coding === "gzip") return zlibModule().gzipSync(body, gzipParameters);
  if (coding === "br") return zlibModule().brotliCompressSync(body, brotliParameters());
  return Bun.zstdCompressSync(body, zstdParameters);
}

function compressOffLoop(coding: ContentCoding, body: Uint8Array): Promise<Uint8Array> {
  if (coding === "zstd") return Bun.zstdCompress(body, zstdParameters);
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Uint8Array) =>
      error ? reject(error) : resolve(result);
    if (coding === "gzip") zlibModule().gzip(body, gzipParameters, done);
    else zlibModule().brotliCompress(body, brotliParameters(), done);
  });
}

/** A test of a Content-Type against the allowed types, `type/*` and the +json/+xml suffixes. */
function compressibleTypes(types: readonly string[]): (contentType: string | undefined) => boolean {
  const exact = new Set<string>();
  const wholeTypes = new Set<string>();
  for (const type of types) {
    const lower = type.toLowerCase();
    if (lower.endsWith("/*")) wholeTypes.add(lower.slice(0, -2));
    else exact.add(lower);
  }
  const json = exact.has("application/json");
  const xml = exact.has("application/xml");
  return (contentType) => {
    if (contentType === undefined) return false;
    const semicolon = contentType.indexOf(";");
    const mediaType = (semicolon < 0 ? contentType : contentType.slice(0, semicolon))
      .trim()
      .toLowerCase();
    if (exact.has(mediaType)) return true;
    if (wholeTypes.has(mediaType.slice(0, mediaType.indexOf("/")))) return true;
    return (json && mediaType.endsWith("+json")) || (xml && mediaType.endsWith("+xml"));
  };
}
