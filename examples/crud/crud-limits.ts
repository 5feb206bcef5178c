/**
 * The CRUD example's limits, as data. Every note, page and request body has a size known in
 * advance, so the store's memory and each response's JSON are bounded (see `output-bounds.ts`).
 *
 * @example
 * if (title.length > noteLimits.maxTitleCharacters) reject();
 */
export const noteLimits = Object.freeze({
  /** Notes the store holds by default; one more is a 507 until a note is deleted. */
  defaultMaxNotes: 1000,
  /** Unicode code points in a title (one line, no control characters). */
  maxTitleCharacters: 100,
  /** Unicode code points in a body (tab, CR and LF allowed; other control characters not). */
  maxBodyCharacters: 1000,
  /** Notes on a page when `limit` is absent. */
  defaultPageSize: 10,
  /** The largest `limit` a client may ask for. */
  maxPageSize: 25,
  /**
   * The largest request body. The worst valid note is every character of the title and body
   * written as a surrogate-pair escape ("\ud83d\ude00": 12 bytes a code point), which is
   * 13,200 bytes; 16 KiB leaves room for the field names and some whitespace. A larger body is
   * a 413 from the engine, before any of it is read.
   */
  maxRequestBodyBytes: 16 * 1024,
  /** Application workers: each reserves its staging and body storage at startup. */
  workers: 8,
});

/**
 * The most bytes `JSON.stringify` writes for one code point of a validated title or body: four
 * for a character outside the Basic Multilingual Plane; a quote, backslash, tab, CR or LF
 * escapes to two. The escapes that take six bytes (other control characters, lone surrogates)
 * are rejected by validation, which is what makes this bound hold.
 *
 * @example
 * const worstTitleBytes = jsonBytesPerCharacter * noteLimits.maxTitleCharacters;
 */
export const jsonBytesPerCharacter = 4;
