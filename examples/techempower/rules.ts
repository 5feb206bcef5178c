import type { Fortune } from "./seed-data.ts";

/** TechEmpower's bounds on `queries`: fewer than 1 (or not a number) is 1, more than 500 is 500. */
export const minQueries = 1;
export const maxQueries = 500;

/**
 * The `queries` parameter of `/queries` and `/updates`, clamped as TechEmpower requires: missing,
 * empty, not an integer or below 1 gives 1; above 500 gives 500. `raw` is the value as sent
 * (digits need no decoding; anything else is not an integer). Linear: at most 4 digits matter.
 */
export function clampQueries(raw: string | undefined | null): number {
  if (raw === undefined || raw === null || raw.length === 0) return minQueries;
  let value = 0;
  for (let index = 0; index < raw.length; index++) {
    const code = raw.charCodeAt(index);
    if (code < 48 || code > 57) return minQueries;
    value = value * 10 + (code - 48);
    if (value > maxQueries) return maxQueries;
  }
  return Math.max(value, minQueries);
}

/** The fortune TechEmpower requires to be added at request time, before sorting. */
export const addedFortuneMessage = "Additional fortune added at request time.";

/**
 * The rows of `/fortunes`: the database's rows plus `{ id: 0, message: addedFortuneMessage }`,
 * sorted by message in code (by UTF-16 code unit, as TechEmpower's expected table is).
 */
export function fortunesPage(rows: readonly Fortune[]): Fortune[] {
  const all: Fortune[] = [...rows, { id: 0, message: addedFortuneMessage }];
  all.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  return all;
}

/** The body of `/plaintext`, written per request (not a pre-rendered response). */
export const plaintextMessage = "Hello, World!";
/** The `Server` header every answer carries (TechEmpower requires one). */
export const serverName = "corral";
/** `Content-Type` of `/fortunes`. */
export const htmlContentType = "text/html; charset=utf-8";
