import type { RequestView } from "corral";
import { Problem } from "./problem.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads the request body as JSON. A body that is not `application/json` is a 415 naming the
 * type it accepts; one that is not UTF-8 or not JSON is a 400. The parser's own message is not
 * passed on: it quotes the client's bytes.
 *
 * @example
 * const value: unknown = readJsonBody(ctx.request);
 */
export function readJsonBody(request: RequestView): unknown {
  checkMediaType(request);
  let text: string;
  try {
    // RFC 8259 §8.1: JSON between systems is UTF-8; a BOM is ignored, which the decoder does.
    text = utf8.decode(request.body);
  } catch {
    throw new Problem(400, "the body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Problem(400, "the body is not valid JSON");
  }
}

function checkMediaType(request: RequestView): void {
  // RFC 9110 §15.5.16: a 415 for a media type may say with Accept what would have been taken,
  // and one for a content coding with Accept-Encoding.
  const encoding = request.header("content-encoding")?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== "" && encoding !== "identity") {
    throw new Problem(415, "the body must not have a content coding", {
      headers: { "Accept-Encoding": "identity" },
    });
  }
  checkJsonContentType(request.header("content-type") ?? "");
}

/**
 * Throws a 415 `Problem` unless `contentType` is `application/json`, with a `charset` parameter
 * (if any) of UTF-8. One pass over the value, each `;`-separated piece looked at once: the
 * header is the client's, so no pattern that could backtrack over it.
 *
 * @example
 * checkJsonContentType('application/json; charset="UTF-8"'); // passes
 * checkJsonContentType("text/plain"); // throws a 415 Problem
 */
export function checkJsonContentType(contentType: string): void {
  let end = contentType.indexOf(";");
  if (end < 0) end = contentType.length;
  // RFC 9110 §8.3.1: type and subtype are case-insensitive.
  if (contentType.slice(0, end).trim().toLowerCase() !== "application/json") {
    throw new Problem(415, "the body must be application/json", {
      headers: { Accept: "application/json" },
    });
  }
  // RFC 8259 §11 defines no charset for application/json; one that says other than UTF-8 lies.
  while (end < contentType.length) {
    const start = end + 1;
    end = contentType.indexOf(";", start);
    if (end < 0) end = contentType.length;
    const parameter = contentType.slice(start, end);
    const equals = parameter.indexOf("=");
    const name = equals < 0 ? parameter : parameter.slice(0, equals);
    if (name.trim().toLowerCase() !== "charset") continue;
    const value = equals < 0 ? "" : unquote(parameter.slice(equals + 1).trim());
    if (value.toLowerCase() !== "utf-8") {
      throw new Problem(415, "a JSON body must be UTF-8", {
        headers: { Accept: "application/json" },
      });
    }
  }
}

function unquote(value: string): string {
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  return quoted ? value.slice(1, -1) : value;
}
