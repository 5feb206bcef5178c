import type { App } from "../app.ts";
import type { Context } from "../context.ts";
import { defaultRangeLimits, type RangeLimits } from "../http/byte-ranges.ts";
import type { ContentCoding } from "../http/content-coding.ts";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import { canonicalPath } from "../router/canonical-path.ts";
import { type CacheControlPolicy, cacheControlFor } from "./cache-control.ts";
import { contentTypeFor, isCompressibleType } from "./content-types.ts";
import { DiskSource } from "./disk-source.ts";
import type { EmbeddedAssets } from "./embedded-assets.ts";
import { answerFile } from "./file-answer.ts";
import type { FileSource } from "./static-file.ts";

const staticFilesOptionNames = optionNames<StaticFilesOptions>({
  root: true,
  assets: true,
  allowDotfiles: true,
  indexFile: true,
  precompressed: true,
  cacheControl: true,
  contentTypes: true,
  rangeLimits: true,
  memoryCache: true,
  windowsNames: true,
  sendfile: true,
});

/**
 * Options of `serveStatic`: exactly one of `root` and `assets`.
 *
 * @example
 * const options: StaticFilesOptions = { root: "./public", cacheControl: "no-cache" };
 */
export interface StaticFilesOptions {
  /** A folder on disk, read at each request (a changed file is served changed). */
  readonly root?: string;
  /** Assets held in memory (`EmbeddedAssets`): no filesystem access at request time. */
  readonly assets?: EmbeddedAssets;
  /** Serve names starting with `.` (`.well-known`). Default false: they are 404. */
  readonly allowDotfiles?: boolean;
  /** Served for a directory path ending in `/`. Default `index.html`; `null` for none. */
  readonly indexFile?: string | null;
  /**
   * Precompressed variants looked for beside a compressible file (`name.br`, `name.zst`,
   * `name.gz`), in the server's order of preference. Default `["br", "zstd", "gzip"]`; `[]` for none.
   */
  readonly precompressed?: readonly ContentCoding[];
  /** `Cache-Control` per file. Default `"default"`: see `defaultCacheControl`. */
  readonly cacheControl?: CacheControlPolicy;
  /** Content types by lower-case extension, over the defaults (`{ wasm: "application/wasm" }`). */
  readonly contentTypes?: Readonly<Record<string, string>>;
  /** Bounds on the `Range` header; see `RangeLimits`. */
  readonly rangeLimits?: Partial<RangeLimits>;
  /**
   * Memory for files on disk: names verified inside the folder (`maxEntries`, default 4096), and
   * the bytes of files up to `maxFileBytes` (default 64 KiB, or `maxBytes` when smaller) within
   * `maxBytes` in all (default 16 MiB), so a hot small file costs one `stat` per request. A
   * `maxFileBytes` over `maxBytes` is a `TypeError`. `false` keeps nothing: every request opens
   * and checks its file again.
   */
  readonly memoryCache?:
    | {
        readonly maxEntries?: number;
        readonly maxBytes?: number;
        readonly maxFileBytes?: number;
      }
    | false;
  /** Also refuse names Windows reads differently (`:`, `~1`, `CON`). Default: on Windows. */
  readonly windowsNames?: boolean;
  /**
   * Send files on disk with the kernel's `sendfile` where the platform has it (Linux): their
   * bytes never enter the process, for a fraction of the CPU a read through staging costs. The
   * price: the kernel reads the file as it sends it, so a file changed in place during a download
   * is caught after the piece that raced the change (4 MiB at most) and the answer cut short; the
   * bytes already out may mix old and new content (a client sees an incomplete answer). Files
   * replaced by a rename, as deploys do, are unaffected: the open file stays the old one. Default
   * false: each piece is read, checked unchanged, then sent, so an answer never holds new bytes
   * after old ones.
   */
  readonly sendfile?: boolean;
}

const codings = new Set<ContentCoding>(["br", "zstd", "gzip"]);

/**
 * Static files for an App: `mount(app, "/files")` serves the folder (or assets) at
 * `/files/<path>` for GET and HEAD. See `serveStatic`.
 *
 * @example
 * serveStatic({ root: "./public" }).mount(app, "/static");
 */
export class StaticFiles {
  readonly #source: FileSource;
  readonly #options: StaticFilesOptions;
  readonly #codings: readonly ContentCoding[];
  readonly #rangeLimits: RangeLimits;

  /** @internal Made by `serveStatic`. */
  constructor(options: StaticFilesOptions) {
    refuseUnknownOptions(options, staticFilesOptionNames, "serveStatic()");
    if ((options.root === undefined) === (options.assets === undefined)) {
      throw new TypeError("corral: serveStatic needs exactly one of root and assets");
    }
    const index = options.indexFile === null ? undefined : (options.indexFile ?? "index.html");
    if (index !== undefined && (index === "" || index.includes("/") || index.startsWith("."))) {
      throw new TypeError(
        `corral: indexFile must be a plain file name, got ${JSON.stringify(index)}`,
      );
    }
    const precompressed = options.precompressed ?? ["br", "zstd", "gzip"];
    for (const coding of precompressed) {
      if (!codings.has(coding))
        throw new TypeError(`corral: unknown precompressed coding ${coding}`);
    }
    this.#codings = Object.freeze([...precompressed]);
    this.#rangeLimits = { ...defaultRangeLimits, ...options.rangeLimits };
    this.#options = options;
    this.#source =
      options.assets ??
      new DiskSource(options.root!, {
        allowDotfiles: options.allowDotfiles === true,
        indexFile: index,
        sendfile: options.sendfile === true,
        ...memoryCacheLimits(options.memoryCache),
      });
  }

  /**
   * Registers GET (and so HEAD) on `at` and everything under it. `at` is `/` or a path without a
   * trailing slash; a request for `at` itself is redirected to `at/`.
   */
  mount<Shared, Locals extends object>(app: App<Shared, Locals>, at = "/"): void {
    const prefix = checkMountPath(at);
    const handler = this.handler(at);
    app.route("GET", prefix === "/" ? "/*path" : `${prefix.slice(0, -1)}/*path`, handler);
  }

  /**
   * The route handler for files mounted at `at`, for a route `${at}/*path` registered by hand
   * (`mount` does it). It reads the raw request path, never the decoded capture, so the
   * canonicalizer sees every `%2F` and `%2e` as sent.
   */
  handler(at = "/"): (ctx: Context<unknown, unknown, unknown>) => Promise<void> | void {
    const prefix = checkMountPath(at);
    const exact = prefix.slice(0, -1);
    return (ctx) => {
      const path = ctx.request.path;
      if (path === exact) {
        const query = ctx.request.queryString;
        ctx.response.redirect(308, `${prefix}${query === "" ? "" : `?${query}`}`);
        return;
      }
      if (!path.startsWith(prefix)) return notFound(ctx);
      return this.#serve(ctx, path.slice(prefix.length));
    };
  }

  #serve(ctx: Context<unknown, unknown, unknown>, rest: string): Promise<void> | void {
    const options = this.#options;
    const checked =
      rest === ""
        ? { ok: true as const, path: { segments: [], trailingSlash: true } }
        : canonicalPath(rest, {
            allowDotfiles: options.allowDotfiles === true,
            windowsNames: options.windowsNames,
          });
    if (!checked.ok) return notFound(ctx);
    const { segments, trailingSlash } = checked.path;
    const found = this.#source.lookup(segments, trailingSlash);
    if (found.kind === "missing") return notFound(ctx);
    if (found.kind === "directory") {
      // RFC 9110 §15.4.9: 308 keeps the method; relative references inside the index page
      // resolve against the directory only once its path ends with "/".
      const query = ctx.request.queryString;
      ctx.response.redirect(308, `${ctx.request.path}/${query === "" ? "" : `?${query}`}`);
      return;
    }
    const contentType = contentTypeFor(found.name, options.contentTypes);
    return answerFile(ctx.request, ctx.response, {
      source: this.#source,
      name: found.name,
      identity: found.file,
      contentType,
      cacheControl: cacheControlFor(options.cacheControl ?? "default", {
        path: found.name,
        contentType,
      }),
      codings: isCompressibleType(contentType) ? this.#codings : noCodings,
      rangeLimits: this.#rangeLimits,
    });
  }
}

const noCodings: readonly ContentCoding[] = Object.freeze([]);

function notFound(ctx: Context<unknown, unknown, unknown>): void {
  ctx.response.text(404, "Not Found\n");
}

function memoryCacheLimits(option: StaticFilesOptions["memoryCache"]) {
  if (option === false) return { maxVerifiedNames: 0, maxCachedBytes: 0, maxCachedFileBytes: -1 };
  const limits = { maxEntries: 4096, maxBytes: 16 * 1024 * 1024, ...option };
  const maxFileBytes = option?.maxFileBytes ?? Math.min(64 * 1024, limits.maxBytes);
  for (const [name, value] of Object.entries({ ...limits, maxFileBytes })) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new TypeError(`corral: memoryCache.${name} must be a whole number >= 0, got ${value}`);
    }
  }
  // A file over the whole budget is read whole for its request and never kept: memory and reads
  // bounded by nothing but the file, where staging would read it piece by piece.
  if (maxFileBytes > limits.maxBytes) {
    throw new TypeError(
      `corral: memoryCache.maxFileBytes (${maxFileBytes}) must be at most memoryCache.maxBytes (${limits.maxBytes}): a larger file would be read whole at every request and never kept`,
    );
  }
  return {
    maxVerifiedNames: limits.maxEntries,
    maxCachedBytes: limits.maxBytes,
    maxCachedFileBytes: maxFileBytes,
  };
}

/** `/` stays `/`; `/files` becomes `/files/`; anything else is a `TypeError`. */
function checkMountPath(at: string): string {
  if (at === "/") return "/";
  if (!at.startsWith("/") || at.endsWith("/") || at.includes("//") || /[:*?#%\s]/.test(at)) {
    throw new TypeError(
      `corral: a static mount path is "/" or like "/files" (no trailing slash, captures or escapes), got ${JSON.stringify(at)}`,
    );
  }
  return `${at}/`;
}

/**
 * Serves static files with the rules of nginx and Caddy, and none of the advisories of the
 * others: one canonicalizer (no `.`/`..`, empty segments, encoded separators, backslashes, NUL,
 * double encoding or dotfiles), containment on the real path of what was opened, strong ETags and
 * Last-Modified, every conditional of RFC 9110 §13, single, suffix, open and multiple ranges,
 * HEAD, `index.html`, a 308 to add a directory's slash, no listings, precompressed variants,
 * `Cache-Control`, and bodies read piece by piece through the worker's staging.
 *
 * @example
 * const app = new App({ shared: {} });
 * serveStatic({ root: "./public" }).mount(app, "/static");
 * serveStatic({ assets: await EmbeddedAssets.fromFolder("./site") }).mount(app, "/");
 */
export function serveStatic(options: StaticFilesOptions): StaticFiles {
  return new StaticFiles(options);
}
