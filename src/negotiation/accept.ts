import { type MediaRange, parseMediaRange, splitListMembers } from "./media-range.ts";

/**
 * Parses an `Accept` field value (RFC 9110 §12.5.1) into its media ranges, in the order sent.
 * Robust to what clients really send: type, subtype and parameter names are case-insensitive,
 * empty members (`a/b,,c/d`) are skipped, and a malformed member is dropped whole while the
 * others still count (see `parseMediaRange` for what is malformed). Several `Accept` lines
 * combine into one value joined with commas (RFC 9110 §5.3) before parsing.
 *
 * @example
 * parseAccept("text/html, application/json;q=0.9, text/*;q=0.1").map((range) => range.quality);
 * // [1, 0.9, 0.1]
 */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const member of splitListMembers(header)) {
    const range = parseMediaRange(member);
    if (range !== undefined) ranges.push(range);
  }
  return ranges;
}

/**
 * Picks which of `available` (the server's media types, most preferred first) to send for an
 * `Accept` header, or `undefined` when none is acceptable (answer 406). Each type takes the
 * weight of the most specific range that matches it (RFC 9110 §12.5.1: `text/html;level=1` over
 * `text/html` over `text/*` over `*\/*`), so `q=0` on a specific range excludes a type a wildcard
 * would admit. The highest weight wins; equal weights go to the earlier type in `available`.
 * No header, or one with no valid member, accepts anything: §12.5.1 lets a server disregard it.
 *
 * @example
 * const types = ["application/json", "text/html; charset=utf-8", "text/plain; charset=utf-8"];
 * negotiate("text/*;q=0.5, text/html", types); // "text/html; charset=utf-8"
 * negotiate("image/png", types); // undefined: answer 406
 * negotiate(undefined, types); // "application/json"
 */
export function negotiate(
  header: string | undefined,
  available: readonly string[],
): string | undefined {
  if (available.length === 0) throw new TypeError("corral: negotiate() needs a media type");
  const offered = available.map(parseAvailable);
  const ranges = header === undefined ? [] : parseAccept(header);
  if (ranges.length === 0) return available[0];
  let chosen: string | undefined;
  let bestQuality = 0;
  for (let index = 0; index < offered.length; index++) {
    const quality = bestRangeQuality(ranges, offered[index]!);
    // Strictly greater: on a tie the server's earlier preference stays.
    if (quality > bestQuality) {
      bestQuality = quality;
      chosen = available[index];
    }
  }
  return chosen;
}

function parseAvailable(mediaType: string): MediaRange {
  const parsed = parseMediaRange(mediaType, false);
  if (parsed === undefined || parsed.type === "*" || parsed.subtype === "*") {
    throw new TypeError(
      `corral: negotiate() needs concrete media types like "text/html", got ${JSON.stringify(mediaType)}`,
    );
  }
  return parsed;
}

/**
 * The weight parsed `ranges` give one concrete `mediaType`: that of the most specific range
 * matching it (the first among equally specific ones), or 0 when no range matches. This is the
 * number `negotiate` compares; it throws `TypeError` for a media type that is not concrete.
 *
 * @example
 * const ranges = parseAccept("text/*;q=0.3, text/html;q=0.7, text/html;level=1");
 * mediaTypeQuality(ranges, "text/html;level=1"); // 1
 * mediaTypeQuality(ranges, "text/html;level=3"); // 0.7
 * mediaTypeQuality(ranges, "image/png"); // 0
 */
export function mediaTypeQuality(ranges: readonly MediaRange[], mediaType: string): number {
  return bestRangeQuality(ranges, parseAvailable(mediaType));
}

function bestRangeQuality(ranges: readonly MediaRange[], offered: MediaRange): number {
  let best: MediaRange | undefined;
  for (const range of ranges) {
    if (matches(range, offered) && (best === undefined || moreSpecific(range, best))) best = range;
  }
  return best?.quality ?? 0;
}

/** `*\/*` < `type/*` < `type/subtype`; between ranges of one level, more parameters win. */
function moreSpecific(range: MediaRange, than: MediaRange): boolean {
  const level = wildcardLevel(range);
  const thanLevel = wildcardLevel(than);
  if (level !== thanLevel) return level > thanLevel;
  return Object.keys(range.parameters).length > Object.keys(than.parameters).length;
}

function wildcardLevel(range: MediaRange): number {
  if (range.type === "*") return 0;
  return range.subtype === "*" ? 1 : 2;
}

/** A range applies when type and subtype agree or are wildcards and the type has its parameters. */
function matches(range: MediaRange, offered: MediaRange): boolean {
  if (range.type !== "*" && range.type !== offered.type) return false;
  if (range.subtype !== "*" && range.subtype !== offered.subtype) return false;
  for (const [name, value] of Object.entries(range.parameters)) {
    if (!Object.hasOwn(offered.parameters, name)) return false;
    const offeredValue = offered.parameters[name]!;
    // RFC 9110 §8.3.2: charset values are case-insensitive; other values are compared as sent.
    const equal =
      name === "charset"
        ? offeredValue.toLowerCase() === value.toLowerCase()
        : offeredValue === value;
    if (!equal) return false;
  }
  return true;
}
