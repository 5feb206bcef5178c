import type { AppLimits } from "corral";
import { jsonBytesPerCharacter, noteLimits } from "./crud-limits.ts";
import { noteRepresentation } from "./note.ts";
import { nextPageLink, pageRepresentation } from "./pagination.ts";

const latestDate = new Date(8.64e15).toISOString(); // the longest ISO string a Date can have

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * The most bytes one note's JSON can take: the representation of a note whose numbers and
 * dates are as long as they can be and whose texts are empty, plus the worst bytes of a full
 * title and body. Computed from the real serialiser, so a new field moves the bound with it.
 *
 * @example
 * expect(Buffer.byteLength(await response.text())).toBeLessThanOrEqual(maxNoteJsonBytes);
 */
export const maxNoteJsonBytes =
  jsonBytes(
    noteRepresentation({
      id: Number.MAX_SAFE_INTEGER,
      version: Number.MAX_SAFE_INTEGER,
      title: "",
      body: "",
      pinned: false,
      createdAt: latestDate,
      updatedAt: latestDate,
    }),
  ) +
  jsonBytesPerCharacter * (noteLimits.maxTitleCharacters + noteLimits.maxBodyCharacters);

/**
 * The most bytes a page's JSON can take: a full page of the largest notes, the commas between
 * them and the longest `next` link.
 *
 * @example
 * expect(Buffer.byteLength(await response.text())).toBeLessThanOrEqual(maxPageJsonBytes);
 */
export const maxPageJsonBytes =
  jsonBytes(
    pageRepresentation(
      [],
      nextPageLink({ limit: noteLimits.maxPageSize, afterId: Number.MAX_SAFE_INTEGER }),
    ),
  ) +
  noteLimits.maxPageSize * (maxNoteJsonBytes + 1);

const kibibyte = 1024;

/**
 * The App limits the example runs with. Staging is the worker's reserved response storage: it
 * holds the largest page (problem documents and single notes are smaller), so no valid request
 * can meet a `ResponseLimitError`. The budget line then reads, with the engine's defaults for
 * the rest, 8 workers x (112 KiB staging + 16 KiB body + 16 KiB stream window).
 *
 * @example
 * new App({ shared, limits: crudAppLimits });
 */
export const crudAppLimits: Partial<AppLimits> = Object.freeze({
  workers: noteLimits.workers,
  maxBodyBytes: noteLimits.maxRequestBodyBytes,
  stagingBytes: Math.ceil(maxPageJsonBytes / kibibyte) * kibibyte,
});
