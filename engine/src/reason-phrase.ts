import { reasonPhrases } from "./internal/status-lines.ts";

/**
 * The RFC 9110 §15 reason phrase of `status` as the engine writes it in status lines, or `""` for
 * a status it has none for.
 *
 * @example
 * reasonPhrase(404); // "Not Found"
 */
export function reasonPhrase(status: number): string {
  return reasonPhrases[status] ?? "";
}
