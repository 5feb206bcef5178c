import { App, type Io, systemIo } from "corral";
import { noteLimits } from "./crud-limits.ts";
import { NoteResource } from "./note-resource.ts";
import { NoteStore } from "./note-store.ts";
import { NotesCollection } from "./notes-collection.ts";
import { crudAppLimits } from "./output-bounds.ts";
import { answeringProblems } from "./problem.ts";

/**
 * The CRUD example's shared state: the one note store.
 *
 * @example
 * app.shared.notes.size; // notes stored now
 */
export interface CrudShared {
  readonly notes: NoteStore;
}

/**
 * Options of `createCrudApp`.
 *
 * @example
 * createCrudApp({ io: new ManualIo(), maxNotes: 3 });
 */
export interface CrudAppOptions {
  /** Clocks and randomness; the notes' times come from its wall clock. `systemIo` by default. */
  readonly io?: Io;
  /** The store's capacity; `noteLimits.defaultMaxNotes` by default. */
  readonly maxNotes?: number;
}

/**
 * A note collection with optimistic concurrency: `POST /notes`, `GET /notes?limit=&cursor=`,
 * `GET`, `PUT` (If-Match required) and `DELETE /notes/:id`. Errors the example decides are
 * JSON problem documents (RFC 9457); anything unexpected is the framework's bare 500.
 *
 * @example
 * const app = createCrudApp({ maxNotes: 3 });
 * const created = await app.request("/notes", {
 *   method: "POST",
 *   headers: { "Content-Type": "application/json" },
 *   body: JSON.stringify({ title: "milk" }),
 * });
 */
export function createCrudApp(options: CrudAppOptions = {}): App<CrudShared> {
  const io = options.io ?? systemIo;
  const notes = new NoteStore({
    capacity: options.maxNotes ?? noteLimits.defaultMaxNotes,
    wallNow: () => io.wallNow(),
  });
  const app = new App<CrudShared>({ shared: { notes }, io, limits: crudAppLimits });
  app.endpoint("/notes", answeringProblems(new NotesCollection()));
  app.endpoint("/notes/:id", answeringProblems(new NoteResource()));
  return app;
}
