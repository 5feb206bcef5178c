import type { ResponseDraft } from "corral";
import { strongEntityTag } from "./entity-tag.ts";

/**
 * What a client sends to create or replace a note, once validated.
 *
 * @example
 * const input: NoteInput = { title: "milk", body: "", pinned: false };
 */
export interface NoteInput {
  readonly title: string;
  readonly body: string;
  readonly pinned: boolean;
}

/**
 * A stored note. Immutable: an update stores a new object with the next version.
 *
 * @example
 * const note: Note | undefined = store.get(7);
 */
export interface Note extends NoteInput {
  /** A positive safe integer; ids are never reused, so neither are entity tags. */
  readonly id: number;
  /** 1 when created, one more on every replacement. */
  readonly version: number;
  /** ISO 8601 times from the App's wall clock. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * The note's strong entity tag, `"<id>-<version>"`: it changes exactly when the note does, and
 * since ids are never reused no other note can ever have had it (RFC 9110 §8.8.3).
 *
 * @example
 * noteEntityTag({ id: 7, version: 2, ... }); // "\"7-2\""
 */
export function noteEntityTag(note: Pick<Note, "id" | "version">): string {
  return strongEntityTag(`${note.id}-${note.version}`);
}

/**
 * The JSON shape of a note: the id as a string (ids are names, not numbers to compute with).
 *
 * @example
 * JSON.stringify(noteRepresentation(note)); // {"id":"7","title":"…",…}
 */
export function noteRepresentation(note: Note) {
  return {
    id: String(note.id),
    title: note.title,
    body: note.body,
    pinned: note.pinned,
    version: note.version,
    createdAt: note.createdAt,
    updatedAt: note.updatedAt,
  };
}

/**
 * Answers with `note` as JSON and its `ETag` (RFC 9110 §8.8.3), so a client can send it back
 * in `If-Match` to update the note.
 *
 * @example
 * writeNote(ctx.response, 200, note);
 */
export function writeNote(response: ResponseDraft, status: number, note: Note): void {
  response.json(status, noteRepresentation(note));
  response.header("ETag", noteEntityTag(note));
}
