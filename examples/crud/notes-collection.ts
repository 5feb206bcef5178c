import type { Context, NoLocals } from "corral";
import type { CrudShared } from "./crud-app.ts";
import { readJsonBody } from "./json-body.ts";
import { writeNote } from "./note.ts";
import { parseNoteInput } from "./note-input.ts";
import { nextPageLink, pageRepresentation, parsePageRequest } from "./pagination.ts";
import { Problem } from "./problem.ts";

type CollectionContext = Context<CrudShared, Record<never, string>, NoLocals>;

/**
 * `/notes`: `GET` lists a page of notes in id order, `POST` creates one.
 *
 * @example
 * app.endpoint("/notes", new NotesCollection());
 */
export class NotesCollection {
  /**
   * `GET /notes?limit=&cursor=`: `{ items, next }`; `next` (also sent as a `Link` with
   * `rel="next"`, RFC 8288 §3) is null on the last page.
   */
  get(ctx: CollectionContext): void {
    const request = parsePageRequest(ctx.request.query());
    const page = ctx.shared.notes.page(request.afterId, request.limit);
    const next =
      page.continueAfter === undefined
        ? null
        : nextPageLink({ limit: request.limit, afterId: page.continueAfter });
    ctx.response.json(200, pageRepresentation(page.notes, next));
    if (next !== null) ctx.response.header("Link", `<${next}>; rel="next"`);
  }

  /**
   * `POST /notes`: 201 with the note, its `Location` (RFC 9110 §15.3.2) and `ETag`. A valid
   * note that does not fit is a 507 Insufficient Storage (RFC 4918 §11.5): the server's fixed
   * capacity, not the request, is at fault, and deleting a note makes room again.
   */
  post(ctx: CollectionContext): void {
    const input = parseNoteInput(readJsonBody(ctx.request));
    const note = ctx.shared.notes.create(input);
    if (note === undefined) {
      throw new Problem(
        507,
        `the collection is full (${ctx.shared.notes.capacity} notes); delete one to make room`,
      );
    }
    ctx.response.header("Location", `/notes/${note.id}`);
    writeNote(ctx.response, 201, note);
  }
}
