import { DecodeError, type ParameterRecords, params } from "corral";
import { noteLimits } from "./crud-limits.ts";
import { type Note, noteRepresentation } from "./note.ts";
import { Problem, type ProblemEntry } from "./problem.ts";

/**
 * A validated page request: how many notes, after which id (0 for the first page).
 *
 * @example
 * const first: PageRequest = { limit: 10, afterId: 0 };
 */
export interface PageRequest {
  readonly limit: number;
  readonly afterId: number;
}

/** Query values are short numbers; anything longer is invalid without decoding it all. */
const queryValueBytes = 32;
const latin1 = new TextDecoder("latin1");

/**
 * Reads `limit` (1 to `maxPageSize`, default `defaultPageSize`) and `cursor` (the id the last
 * page ended at, as the server wrote it in `next`) from the query. Each given at most once;
 * every problem is listed in one 400. Other parameters are ignored.
 *
 * @example
 * const { limit, afterId } = parsePageRequest(ctx.request.query());
 */
export function parsePageRequest(query: ParameterRecords): PageRequest {
  const errors: ProblemEntry[] = [];
  const limit = readWholeNumber(query, "limit", 1, noteLimits.maxPageSize, errors);
  const afterId = readWholeNumber(query, "cursor", 1, Number.MAX_SAFE_INTEGER, errors);
  if (errors.length > 0) throw new Problem(400, "the page request is not valid", { errors });
  return { limit: limit ?? noteLimits.defaultPageSize, afterId: afterId ?? 0 };
}

/**
 * The link to the page after `afterId` with the same `limit`, relative to the origin.
 *
 * @example
 * nextPageLink({ limit: 10, afterId: 12 }); // "/notes?limit=10&cursor=12"
 */
export function nextPageLink(page: PageRequest): string {
  return `/notes?limit=${page.limit}&cursor=${page.afterId}`;
}

/**
 * The JSON shape of a page: its notes and the link to the next page, or null on the last.
 *
 * @example
 * ctx.response.json(200, pageRepresentation(notes, "/notes?limit=10&cursor=12"));
 */
export function pageRepresentation(notes: readonly Note[], next: string | null) {
  return { items: notes.map(noteRepresentation), next };
}

function readWholeNumber(
  query: ParameterRecords,
  name: string,
  minimum: number,
  maximum: number,
  errors: ProblemEntry[],
): number | undefined {
  const entries = query.allRaw(name);
  if (entries.length === 0) return undefined;
  const range = `a whole number from ${minimum} to ${maximum}`;
  if (entries.length > 1) {
    errors.push({ parameter: name, detail: `must be given once, as ${range}` });
    return undefined;
  }
  const text = decodeQueryValue(entries[0]!.valueRaw);
  const value = text !== undefined && /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= minimum && value <= maximum)) {
    errors.push({ parameter: name, detail: `must be ${range}` });
    return undefined;
  }
  return value;
}

function decodeQueryValue(raw: string): string | undefined {
  try {
    return latin1.decode(params.percentDecodeInto(raw, new Uint8Array(queryValueBytes)));
  } catch (error) {
    if (error instanceof DecodeError) return undefined;
    throw error;
  }
}
