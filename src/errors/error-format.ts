import { reasonPhrase } from "corral/engine";
import type { ResponseDraft } from "../response-draft.ts";
import type { ErrorAnswer } from "./status-error.ts";

/**
 * How the App writes the error answers it makes itself (mapped errors, 404, 405, 501):
 * `"text"`, the message as `text/plain` (an `HttpError` with a `body` answers that JSON); or
 * `"problem"`, RFC 9457 problem details as `application/problem+json`.
 *
 * @example
 * const app = new App({ shared: {}, errorFormat: "problem" });
 */
export type ErrorFormat = "text" | "problem";

/** The RFC 9457 media type. */
export const problemContentType = "application/problem+json";

/** Drafts `answer` (status, headers and body) in `format` onto an empty draft. */
export function writeErrorAnswer(
  response: ResponseDraft,
  answer: ErrorAnswer,
  format: ErrorFormat,
): void {
  if (format === "problem") {
    response.json(answer.status, problemDetails(answer));
    response.header("Content-Type", problemContentType);
  } else if (answer.body !== undefined) {
    response.json(answer.status, answer.body);
  } else {
    response.text(answer.status, `${answer.message}\n`);
  }
  for (const name in answer.headers) response.header(name, answer.headers[name]!);
}

/**
 * RFC 9457 §3.1: `type` (about:blank: the status says it all), `title` (the reason phrase),
 * `status` and `detail` (the message); an object body adds its members (§3.2 extensions).
 */
function problemDetails(answer: ErrorAnswer): Record<string, unknown> {
  const title = reasonPhrase(answer.status) || "Error";
  const problem: Record<string, unknown> = {
    type: "about:blank",
    title,
    status: answer.status,
  };
  const detail = answer.detail ?? answer.message;
  if (detail !== title) problem.detail = detail;
  const body = answer.body;
  if (typeof body === "object" && body !== null && !Array.isArray(body))
    Object.assign(problem, body);
  return problem;
}
