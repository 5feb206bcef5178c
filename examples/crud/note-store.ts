import type { Note, NoteInput } from "./note.ts";

/**
 * One page of notes in id order, and the id to continue after (undefined on the last page).
 *
 * @example
 * const { notes, continueAfter } = store.page(0, 10);
 */
export interface NotePage {
  readonly notes: readonly Note[];
  readonly continueAfter: number | undefined;
}

/**
 * A fixed-capacity, in-memory note collection. Ids count up from 1 and are never reused, so a
 * Map's insertion order is id order and an old entity tag can never match a newer note. Every
 * method is synchronous: a handler's read-check-write runs without another request in between.
 *
 * @example
 * const notes = new NoteStore({ capacity: 100, wallNow: () => Date.now() });
 * const note = notes.create({ title: "milk", body: "", pinned: false });
 */
export class NoteStore {
  /** The most notes the store holds. */
  readonly capacity: number;
  readonly #notes = new Map<number, Note>();
  readonly #wallNow: () => number;
  #lastId = 0;

  constructor(options: { readonly capacity: number; readonly wallNow: () => number }) {
    if (!Number.isSafeInteger(options.capacity) || options.capacity < 1) {
      throw new TypeError(
        `note store capacity must be a whole number >= 1, got ${options.capacity}`,
      );
    }
    this.capacity = options.capacity;
    this.#wallNow = options.wallNow;
  }

  /** How many notes are stored. */
  get size(): number {
    return this.#notes.size;
  }

  /** Stores a new note at version 1, or returns undefined when the store is full. */
  create(input: NoteInput): Note | undefined {
    if (this.#notes.size >= this.capacity) return undefined;
    const now = this.#timestamp();
    const note: Note = Object.freeze({
      ...input,
      id: ++this.#lastId,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
    this.#notes.set(note.id, note);
    return note;
  }

  /** The note with `id`, or undefined. */
  get(id: number): Note | undefined {
    return this.#notes.get(id);
  }

  /** Replaces the fields of note `id` and bumps its version; undefined when there is none. */
  replace(id: number, input: NoteInput): Note | undefined {
    const current = this.#notes.get(id);
    if (current === undefined) return undefined;
    const note: Note = Object.freeze({
      ...input,
      id,
      version: current.version + 1,
      createdAt: current.createdAt,
      updatedAt: this.#timestamp(),
    });
    // Setting an existing key keeps its place in the Map, so id order holds.
    this.#notes.set(id, note);
    return note;
  }

  /** Deletes note `id`; false when there was none. */
  delete(id: number): boolean {
    return this.#notes.delete(id);
  }

  /**
   * Up to `limit` notes with ids above `afterId`, in id order. Keyset paging: a note created or
   * deleted between two pages neither repeats nor hides another, unlike an offset. The scan is
   * linear, which the fixed capacity bounds.
   */
  page(afterId: number, limit: number): NotePage {
    const notes: Note[] = [];
    let more = false;
    for (const note of this.#notes.values()) {
      if (note.id <= afterId) continue;
      if (notes.length === limit) {
        more = true;
        break;
      }
      notes.push(note);
    }
    return { notes, continueAfter: more ? notes.at(-1)?.id : undefined };
  }

  #timestamp(): string {
    return new Date(this.#wallNow()).toISOString();
  }
}
