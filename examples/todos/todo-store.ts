import { Database, type Statement } from "bun:sqlite";

/** A todo as the API answers it. */
export interface Todo {
  readonly id: number;
  readonly title: string;
  readonly done: boolean;
}

/** One page of todos and the cursor of the next one (null on the last page). */
export interface TodoPage {
  readonly items: readonly Todo[];
  readonly next: number | null;
}

interface TodoRow {
  readonly id: number;
  readonly title: string;
  readonly done: number;
}

const toTodo = (row: TodoRow): Todo => ({ id: row.id, title: row.title, done: row.done === 1 });

/** Todos a store holds by default: one more is refused (507) until one is deleted. */
export const defaultMaxTodos = 1000;

/**
 * Todos in SQLite (`bun:sqlite`): in memory by default, or in a file shared by the processes of
 * `--processes N` (WAL mode). Every query is a statement prepared once. Pages are keyed by id
 * (`id > cursor`), so a page costs the same wherever it is and inserts never shift it. The store
 * holds at most `maxTodos`: anyone may add todos, and a list without a bound grows memory, the
 * file and every page load until something gives.
 */
export class TodoStore {
  /** The most todos the store holds. */
  readonly maxTodos: number;
  readonly #database: Database;
  readonly #list: Statement<TodoRow, [number, number]>;
  readonly #get: Statement<TodoRow, [number]>;
  readonly #insert: Statement<TodoRow, [string, number, number]>;
  readonly #update: Statement<TodoRow, [string, number, number]>;
  readonly #delete: Statement<unknown, [number]>;

  constructor(file = ":memory:", maxTodos = defaultMaxTodos) {
    if (!Number.isSafeInteger(maxTodos) || maxTodos < 1) {
      throw new RangeError(`todos: maxTodos must be a whole number >= 1, got ${maxTodos}`);
    }
    this.maxTodos = maxTodos;
    this.#database = new Database(file, { create: true, strict: true });
    if (file !== ":memory:") this.#database.run("PRAGMA journal_mode = WAL");
    this.#database.run("PRAGMA busy_timeout = 1000");
    this.#database.run(
      "CREATE TABLE IF NOT EXISTS todos (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0)",
    );
    this.#list = this.#database.query(
      "SELECT id, title, done FROM todos WHERE id > ? ORDER BY id LIMIT ?",
    );
    this.#get = this.#database.query("SELECT id, title, done FROM todos WHERE id = ?");
    // The count and the insert are one statement: processes sharing the file cannot both take
    // the last place.
    this.#insert = this.#database.query(
      "INSERT INTO todos (title, done) SELECT ?, ? WHERE (SELECT COUNT(*) FROM todos) < ? RETURNING id, title, done",
    );
    this.#update = this.#database.query(
      "UPDATE todos SET title = ?, done = ? WHERE id = ? RETURNING id, title, done",
    );
    this.#delete = this.#database.query("DELETE FROM todos WHERE id = ?");
  }

  /** Up to `limit` todos after the one with id `cursor` (0: from the start). */
  list(limit: number, cursor: number): TodoPage {
    // One more row than asked says whether there is a next page, without a COUNT.
    const rows = this.#list.all(cursor, limit + 1);
    const items = rows.slice(0, limit).map(toTodo);
    const next = rows.length > limit ? items[items.length - 1]!.id : null;
    return { items, next };
  }

  get(id: number): Todo | undefined {
    const row = this.#get.get(id);
    return row === null ? undefined : toTodo(row);
  }

  /** The new todo; undefined when the store already holds `maxTodos`. */
  create(title: string, done: boolean): Todo | undefined {
    const row = this.#insert.get(title, done ? 1 : 0, this.maxTodos);
    return row === null ? undefined : toTodo(row);
  }

  /** Applies `changes` to todo `id`; undefined when there is none. */
  update(
    id: number,
    changes: { readonly title?: string; readonly done?: boolean },
  ): Todo | undefined {
    const current = this.get(id);
    if (current === undefined) return undefined;
    const title = changes.title ?? current.title;
    const done = changes.done ?? current.done;
    const row = this.#update.get(title, done ? 1 : 0, id);
    return row === null ? undefined : toTodo(row);
  }

  /** Whether todo `id` existed. */
  delete(id: number): boolean {
    return this.#delete.run(id).changes > 0;
  }

  close(): void {
    this.#database.close();
  }
}
