import { noteLimits } from "./crud-limits.ts";
import type { NoteInput } from "./note.ts";
import { Problem, type ProblemEntry } from "./problem.ts";

const allowedFields = new Set(["title", "body", "pinned"]);

/**
 * Checks a parsed JSON body against the note schema and returns the note's fields, or throws a
 * 422 `Problem` listing every problem at once (RFC 9110 §15.5.21: well-formed content with
 * unusable values). `title` is required; `body` (default "") and `pinned` (default false) may
 * be absent (not null), also on PUT, which replaces the whole note. Unknown fields are refused,
 * not ignored, so a misspelt field is not lost silently. Problems never echo the client's text.
 *
 * @example
 * const input = parseNoteInput(readJsonBody(ctx.request));
 */
export function parseNoteInput(value: unknown): NoteInput {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid([{ pointer: "#", detail: "must be a JSON object" }]);
  }
  const fields = value as Record<string, unknown>;
  const errors: ProblemEntry[] = [];
  const unknown = Object.keys(fields).filter((name) => !allowedFields.has(name)).length;
  if (unknown > 0) {
    errors.push({
      pointer: "#",
      detail: `has ${unknown} unknown field${unknown === 1 ? "" : "s"}; allowed: title, body, pinned`,
    });
  }
  const title = fields.title;
  const titleProblem = !Object.hasOwn(fields, "title")
    ? "is required"
    : (textProblem(title, noteLimits.maxTitleCharacters, false) ??
      (title === "" ? "must not be empty" : undefined));
  if (titleProblem !== undefined) errors.push({ pointer: "#/title", detail: titleProblem });
  const body = Object.hasOwn(fields, "body") ? fields.body : "";
  const bodyProblem = textProblem(body, noteLimits.maxBodyCharacters, true);
  if (bodyProblem !== undefined) errors.push({ pointer: "#/body", detail: bodyProblem });
  const pinned = Object.hasOwn(fields, "pinned") ? fields.pinned : false;
  if (typeof pinned !== "boolean") {
    errors.push({ pointer: "#/pinned", detail: "must be a boolean" });
  }
  if (errors.length > 0) throw invalid(errors);
  return { title: title as string, body: body as string, pinned: pinned as boolean };
}

function invalid(errors: readonly ProblemEntry[]): Problem {
  return new Problem(422, "the note is not valid", { errors });
}

/**
 * What is wrong with `value` as a text field, or undefined. Lengths count Unicode code points,
 * as a person counts characters. Control characters and lone surrogates are refused: they are
 * the only characters JSON would escape to six bytes, so refusing them bounds the output.
 */
function textProblem(
  value: unknown,
  maxCharacters: number,
  multiline: boolean,
): string | undefined {
  if (typeof value !== "string") return "must be a string";
  if (!value.isWellFormed()) return "must be well-formed Unicode (no lone surrogates)";
  let characters = 0;
  for (const character of value) {
    characters++;
    if (isForbiddenControl(character.charCodeAt(0), multiline)) {
      return multiline
        ? "must not contain control characters other than tab, CR and LF"
        : "must not contain control characters or line breaks";
    }
  }
  if (characters > maxCharacters) return `must be at most ${maxCharacters} characters`;
  return undefined;
}

function isForbiddenControl(code: number, multiline: boolean): boolean {
  if (multiline && (code === 0x09 || code === 0x0a || code === 0x0d)) return false;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}
