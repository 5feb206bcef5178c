import { jsonByteLength } from "./catalogue.ts";

/** The longest id the app looks up, in UTF-8 bytes after percent-decoding; longer is a 400. */
export const maxIdBytes = 64;

/**
 * The JSON error bodies of the json-lookup example. Each echoes at most one id of at most
 * `maxIdBytes`, so `longestErrorBytes` bounds them all and the app can prove at startup that
 * every error fits in staging: an error answer can never itself be too large.
 *
 * @example
 * ctx.response.json(404, itemErrors.notFound("nope")); // {"error":"not found","id":"nope"}
 */
export const itemErrors = {
  notFound: (id: string) => ({ error: "not found", id }),
  malformedId: () => ({ error: "malformed id", reason: "its percent-encoding is not UTF-8" }),
  idTooLong: () => ({ error: "id too long", maxIdBytes }),
  /** The response would not fit in `limitBytes` of staging: refused whole, never truncated. */
  tooLarge: (id: string | undefined, limitBytes: number) => ({
    error: "response too large",
    ...(id === undefined ? {} : { id }),
    limitBytes,
  }),
};

/**
 * The byte length of the longest error body for a given staging limit. Its id is `maxIdBytes`
 * control characters: JSON spells each `\u0000`, six bytes, the most one byte of an id can take.
 *
 * @example
 * longestErrorBytes(1024) <= 1024; // true: every error answer fits
 */
export function longestErrorBytes(stagingBytes: number): number {
  const worstId = "\u0000".repeat(maxIdBytes);
  return Math.max(
    jsonByteLength(itemErrors.notFound(worstId)),
    jsonByteLength(itemErrors.malformedId()),
    jsonByteLength(itemErrors.idTooLong()),
    jsonByteLength(itemErrors.tooLarge(worstId, stagingBytes)),
  );
}
