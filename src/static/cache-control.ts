/**
 * What a Cache-Control policy is told about the file being sent.
 *
 * @example
 * const policy = (file: CachedFile) => (file.path.startsWith("private/") ? "no-store" : undefined);
 */
export interface CachedFile {
  /** The path under the folder, decoded, `/`-separated (`assets/app.3f9a8c1d.js`). */
  readonly path: string;
  readonly contentType: string;
}

/**
 * A `Cache-Control` policy: one value for every file, a function of the file (undefined sends
 * none), or `"default"`: see `defaultCacheControl`.
 *
 * @example
 * const policy: CacheControlPolicy = "public, max-age=60";
 */
export type CacheControlPolicy = string | ((file: CachedFile) => string | undefined) | "default";

/** A year, the longest `max-age` worth sending (RFC 9111 §5.2.2.1 caps nothing, caches do). */
const immutable = "public, max-age=31536000, immutable";
const revalidate = "no-cache";

/**
 * The default policy: a name carrying a content hash (`app.3f9a8c1d.js`, `index-BXk3ZQ9a.css`)
 * never changes, so it is cached for a year as `immutable`; everything else, HTML first, is
 * `no-cache`: stored, but revalidated on every use, which the ETag makes a cheap 304.
 *
 * @example
 * defaultCacheControl({ path: "app.3f9a8c1d.js", contentType: "text/javascript" }); // immutable
 */
export function defaultCacheControl(file: CachedFile): string {
  return hasContentHash(file.path) ? immutable : revalidate;
}

/** Resolves a policy for one file. */
export function cacheControlFor(policy: CacheControlPolicy, file: CachedFile): string | undefined {
  if (policy === "default") return defaultCacheControl(file);
  if (typeof policy === "string") return policy;
  return policy(file);
}

/**
 * Whether the last segment has a part, between `.` or `-` separators and before the extension,
 * of 8 or more letters and digits (ASCII; `_` is neither) with at least one digit: what bundlers
 * put in built names. One linear scan.
 *
 * @example
 * hasContentHash("assets/index-BXk3ZQ9a.css"); // true
 * hasContentHash("report2024.pdf"); // false
 */
export function hasContentHash(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const end = name.lastIndexOf(".");
  if (end <= 0) return false;
  let runLength = 0;
  let runHasDigit = false;
  // Whether the current run follows a `.` or `-`: one after `_` or at the start is no part.
  let runAfterSeparator = false;
  for (let index = 0; index <= end; index++) {
    const code = index === end ? 0x2e : name.charCodeAt(index);
    const isDigit = code >= 0x30 && code <= 0x39;
    const isLetter = (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
    if (isDigit || isLetter) {
      runLength++;
      runHasDigit ||= isDigit;
      continue;
    }
    const isSeparator = code === 0x2e || code === 0x2d;
    if (runLength >= 8 && runHasDigit && runAfterSeparator && isSeparator) return true;
    runLength = 0;
    runHasDigit = false;
    runAfterSeparator = isSeparator;
  }
  return false;
}
