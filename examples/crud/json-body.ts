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
  const [type = "", ...parameters] = (request.header("content-type") ?? "").split(";");
  // RFC 9110 §8.3.1: type and subtype are case-insensitive.
  if (type.trim().toLowerCase() !== "application/json") {
    throw new Problem(415, "the body must be application/json", {
      headers: { Accept: "application/json" },
    });
  }
  // RFC 8259 §11 defines no charset for application/json; one that says other than UTF-8 lies.
  for (const parameter of parameters) {
    const [name = "", value = ""] = parameter.split("=");
    if (name.trim().toLowerCase() !== "charset") continue;
    if (
      value
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .toLowerCase() !== "utf-8"
    ) {
      throw new Problem(415, "a JSON body must be UTF-8", {
        headers: { Accept: "application/json" },
      });
    }
  }
}
