import { HttpError } from "corral";

/** One rule a request body broke, with the JSON Pointer (RFC 6901) of the value. */
export interface InputProblem {
  readonly path: string;
  readonly message: string;
}

/** A todo to create: what `POST /api/todos` accepts. */
export interface NewTodo {
  readonly title: string;
  readonly done: boolean;
}

/** Changes to a todo: what `PATCH /api/todos/:id` accepts. */
export interface TodoChanges {
  readonly title?: string;
  readonly done?: boolean;
}

export const maxTitleCharacters = 200;

/** `{ "title": string of 1-200 characters, "done"?: boolean }`, or a 422 listing each problem. */
export function parseNewTodo(body: unknown): NewTodo {
  const problems: InputProblem[] = [];
  const fields = objectOrThrow(body, ["title", "done"], problems);
  const title = titleOf(fields.title, problems, true);
  const done = doneOf(fields.done, problems);
  throwIfAny(problems);
  return { title: title!, done: done ?? false };
}

/** `{ "title"?: ..., "done"?: ... }` with the same rules, each field optional. */
export function parseTodoChanges(body: unknown): TodoChanges {
  const problems: InputProblem[] = [];
  const fields = objectOrThrow(body, ["title", "done"], problems);
  const title = titleOf(fields.title, problems, false);
  const done = doneOf(fields.done, problems);
  throwIfAny(problems);
  return { ...(title === undefined ? {} : { title }), ...(done === undefined ? {} : { done }) };
}

/** The body's fields; a body that is no object is a 422 at once, unknown fields problems. */
function objectOrThrow(
  body: unknown,
  known: readonly string[],
  problems: InputProblem[],
): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throwIfAny([{ path: "", message: "must be a JSON object" }]);
  }
  const fields = body as Record<string, unknown>;
  // At most ten named: the answer stays small whatever the client sends.
  const unknown = Object.keys(fields)
    .filter((name) => !known.includes(name))
    .slice(0, 10);
  for (const name of unknown) {
    problems.push({ path: `/${escapePointer(name)}`, message: "is not a field of a todo" });
  }
  return fields;
}

function titleOf(value: unknown, problems: InputProblem[], required: boolean): string | undefined {
  if (value === undefined) {
    if (required) problems.push({ path: "/title", message: "is required" });
    return undefined;
  }
  if (typeof value !== "string") {
    problems.push({ path: "/title", message: "must be a string" });
    return undefined;
  }
  // Characters as people count them: code points, not UTF-16 units.
  const characters = [...value].length;
  if (characters < 1 || characters > maxTitleCharacters) {
    problems.push({ path: "/title", message: `must be 1-${maxTitleCharacters} characters` });
    return undefined;
  }
  return value;
}

function doneOf(value: unknown, problems: InputProblem[]): boolean | undefined {
  if (value === undefined || typeof value === "boolean") return value;
  problems.push({ path: "/done", message: "must be true or false" });
  return undefined;
}

function throwIfAny(problems: readonly InputProblem[]): void {
  if (problems.length === 0) return;
  throw new HttpError(422, "the todo breaks the rules listed in errors", {
    body: { errors: problems },
  });
}

/** RFC 6901 §3: `~` and `/` in a member name are escaped. */
function escapePointer(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}
