import { listMatches } from "./entity-tags.ts";
import { parseHttpDate } from "./http-date.ts";

/**
 * What a representation is validated by: its entity-tag and its modification time.
 *
 * @example
 * const validators: Validators = { etag: '"v1"', lastModified: Date.parse("2026-01-01T00:00:00Z") };
 */
export interface Validators {
  /** As sent on the wire, quotes included, with the `W/` prefix when weak. */
  readonly etag?: string;
  /** Milliseconds since the epoch; compared at one-second precision (HTTP dates have no more). */
  readonly lastModified?: number;
}

/** What the preconditions of a request decide: go on, answer 304, or answer 412. */
export type PreconditionResult = "proceed" | "not-modified" | "precondition-failed";

/**
 * Evaluates the conditional headers of a request against the current representation, in the
 * order of RFC 9110 §13.2.2: `If-Match` (strong comparison), then `If-Unmodified-Since` (only
 * without `If-Match`) fail with 412; `If-None-Match` (a list or `*`, weak comparison) matching
 * gives 304 for GET and HEAD and 412 for other methods; `If-Modified-Since` counts only for GET
 * and HEAD without `If-None-Match`. A date that does not parse is ignored (§13.1.3, §13.1.4).
 * `header(name)` returns a request header by lower-case name.
 *
 * A request tag that is the current one with a coding suffix (`"v1-gzip"` for `"v1"`, as
 * `compress()` labels the coded form it sends) matches it in `If-Match` and `If-None-Match`, by
 * the same comparison: the client holds a coded form of the current representation, so its copy
 * is current, and its update is not lost (§13.1.1). Tags ending in `-br`, `-zstd` or `-gzip` are
 * therefore best left to `compress()`.
 *
 * @example
 * const result = evaluatePreconditions("GET", (name) => ctx.request.header(name), { etag: '"v1"' });
 * if (result === "not-modified") ctx.response.setStatus(304);
 */
export function evaluatePreconditions(
  method: string,
  header: (name: string) => string | undefined,
  validators: Validators,
): PreconditionResult {
  const safe = method === "GET" || method === "HEAD";
  const ifMatch = header("if-match");
  if (ifMatch !== undefined) {
    if (!listMatches(ifMatch, validators.etag, "strong", true)) return "precondition-failed";
  } else {
    const since = dateOf(header("if-unmodified-since"));
    const modified = secondsOf(validators.lastModified);
    if (since !== undefined && modified !== undefined && modified > since) {
      return "precondition-failed";
    }
  }
  const ifNoneMatch = header("if-none-match");
  if (ifNoneMatch !== undefined) {
    if (listMatches(ifNoneMatch, validators.etag, "weak", true)) {
      return safe ? "not-modified" : "precondition-failed";
    }
    return "proceed";
  }
  if (safe) {
    const since = dateOf(header("if-modified-since"));
    const modified = secondsOf(validators.lastModified);
    if (since !== undefined && modified !== undefined && modified <= since) return "not-modified";
  }
  return "proceed";
}

/**
 * Whether a Range request may be honoured (RFC 9110 §13.1.5): without `If-Range`, or when it is
 * an entity-tag that matches the current one by strong comparison, or an HTTP-date exactly equal
 * to `lastModified` (at one-second precision) that is a strong validator: `lastModified` at least
 * one second before `now`, the `Date` of the response (§8.8.2.2; a file modified in the current
 * second may change again within it, under the same date). Otherwise the whole representation is
 * sent. A coded form's tag (`"v1-gzip"`) does not allow a range of `"v1"`: its bytes are other
 * bytes.
 *
 * @example
 * if (!ifRangeAllows((name) => ctx.request.header(name), validators)) sendWhole();
 */
export function ifRangeAllows(
  header: (name: string) => string | undefined,
  validators: Validators,
  now: number = Date.now(),
): boolean {
  const value = header("if-range");
  if (value === undefined) return true;
  if (value.startsWith('"') || value.startsWith("W/")) {
    // A weak tag never allows a range, so a one-member strong comparison decides.
    return (
      value.startsWith('"') && !value.includes(",") && listMatches(value, validators.etag, "strong")
    );
  }
  const date = dateOf(value);
  const modified = secondsOf(validators.lastModified);
  // The Date sent is `now` to the second: the last modification must lie in an earlier second.
  return (
    date !== undefined &&
    modified !== undefined &&
    date === modified &&
    modified < Math.floor(now / 1000)
  );
}

function dateOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseHttpDate(value.trim());
  return ms === undefined ? undefined : ms / 1000;
}

function secondsOf(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.floor(ms / 1000);
}
