import type { Context, NoLocals, PathParams } from "corral";
import type { CrudShared } from "./crud-app.ts";
import { readJsonBody } from "./json-body.ts";
import { type Note, noteEntityTag, writeNote } from "./note.ts";
import { parseNoteInput } from "./note-input.ts";
import { checkIfMatch, isNotModified } from "./preconditions.ts";
import { Problem } from "./problem.ts";

type NoteContext = Context<CrudShared, PathParams<"/notes/:id">, NoLocals>;

/**
 * `/notes/:id`: `GET` reads a note (304 for a matching `If-None-Match`), `PUT` replaces it
 * (`If-Match` required), `DELETE` removes it (`If-Match` honoured when sent).
 *
 * @example
 * app.endpoint("/notes/:id", new NoteResource());
 */
export class NoteResource {
  /** `GET /notes/:id`: 200 with the note and its `ETag`, or 304 (RFC 9110 §15.4.5). */
  get(ctx: NoteContext): void {
    const note = findNote(ctx);
    const tag = noteEntityTag(note);
    if (isNotModified(ctx.request, tag)) {
      // RFC 9110 §15.4.5: a 304 carries the ETag a 200 would have had.
      ctx.response.header("ETag", tag);
      ctx.response.setStatus(304);
      return;
    }
    writeNote(ctx.response, 200, note);
  }

  /** `PUT /notes/:id`: 200 with the replaced note and its new `ETag`. */
  put(ctx: NoteContext): void {
    const note = findNote(ctx);
    checkIfMatch(ctx.request, noteEntityTag(note), { required: true });
    const input = parseNoteInput(readJsonBody(ctx.request));
    writeNote(ctx.response, 200, ctx.shared.notes.replace(note.id, input)!);
  }

  /** `DELETE /notes/:id`: 204. */
  delete(ctx: NoteContext): void {
    const note = findNote(ctx);
    checkIfMatch(ctx.request, noteEntityTag(note), { required: false });
    ctx.shared.notes.delete(note.id);
    ctx.response.setStatus(204);
  }
}

function findNote(ctx: NoteContext): Note {
  const text = ctx.params.id;
  // Ids are written without leading zeros; "07" names no note, as "seven" does not.
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : Number.NaN;
  const note = Number.isSafeInteger(id) ? ctx.shared.notes.get(id) : undefined;
  if (note === undefined) throw new Problem(404, "there is no note with this id");
  return note;
}
