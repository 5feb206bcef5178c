import type { RequestView } from "corral";
import {
  type EntityTagCondition,
  matchesStrongly,
  matchesWeakly,
  parseEntityTagCondition,
} from "./entity-tag.ts";
import { Problem } from "./problem.ts";

/**
 * Evaluates `If-Match` against the current strong tag for a state-changing request
 * (RFC 9110 §13.1.1, strong comparison): no match is a 412. With `required`, a request without
 * `If-Match` is a 428 (RFC 6585 §3), so an update can never silently overwrite a change the
 * client has not seen (the "lost update" problem). Called only once the note exists: a request
 * that would be a 404 without its preconditions is a 404 with them (RFC 9110 §13.2.1).
 *
 * @example
 * checkIfMatch(ctx.request, noteEntityTag(note), { required: true });
 */
export function checkIfMatch(
  request: RequestView,
  current: string,
  options: { readonly required: boolean },
): void {
  const condition = readCondition(request, "if-match");
  if (condition === undefined) {
    if (!options.required) return;
    throw new Problem(
      428,
      "this request must be conditional: send If-Match with the note's ETag from a GET",
    );
  }
  if (!matchesStrongly(condition, current)) {
    throw new Problem(412, "the note has changed since that ETag; GET it again and retry");
  }
}

/**
 * Whether a GET can be answered 304 Not Modified: `If-None-Match` matches the current tag under
 * the weak comparison (RFC 9110 §13.1.2). A malformed value is a 400.
 *
 * @example
 * if (isNotModified(ctx.request, tag)) ctx.response.setStatus(304);
 */
export function isNotModified(request: RequestView, current: string): boolean {
  const condition = readCondition(request, "if-none-match");
  return condition !== undefined && matchesWeakly(condition, current);
}

/** The field's lines joined as one list (RFC 9110 §5.3), parsed; undefined when absent. */
function readCondition(request: RequestView, name: string): EntityTagCondition | undefined {
  const lines = request
    .headers()
    .filter(([lineName]) => lineName.toLowerCase() === name)
    .map(([, value]) => value);
  if (lines.length === 0) return undefined;
  const condition = parseEntityTagCondition(lines.join(", "));
  if (condition === undefined) {
    throw new Problem(
      400,
      `${name === "if-match" ? "If-Match" : "If-None-Match"} is not * or a list of entity tags`,
    );
  }
  return condition;
}
