import { skipListSeparators, skipWhitespace, tokenEnd } from "../field-syntax.ts";
import { qualityValue } from "../negotiation/media-range.ts";

/** The content codings corral compresses with (Bun's built-ins). */
export type ContentCoding = "br" | "zstd" | "gzip";

/**
 * Picks the content coding the client prefers among `available` by the q-values of its
 * `Accept-Encoding` (RFC 9110 §12.5.3): `q=0` refuses a coding, `*` stands for every coding not
 * named, and equal weights go to the earlier coding in `available`. `"identity"` (no coding) when
 * none is acceptable or the client weighs identity higher, by name or through `*` (a coding it
 * lists beats an identity it gave no weight, and wins a tie); `undefined` when even identity is
 * refused (`identity;q=0`, or `*;q=0` without identity named): answer 415 or send identity
 * anyway. Without the header, identity. One pass over the value, no regular expression.
 *
 * @example
 * chooseContentCoding("gzip;q=0.8, br", ["br", "zstd", "gzip"]); // "br"
 * chooseContentCoding("identity;q=0, *;q=0", ["gzip"]); // undefined
 */
export function chooseContentCoding(
  acceptEncoding: string | undefined,
  available: readonly ContentCoding[],
): ContentCoding | "identity" | undefined {
  if (acceptEncoding === undefined) return "identity";
  if (
    acceptEncoding === lastChoice.acceptEncoding &&
    sameCodings(available, lastChoice.available)
  ) {
    return lastChoice.coding;
  }
  const coding = chooseAmong(acceptEncoding, available);
  lastChoice.acceptEncoding = acceptEncoding;
  lastChoice.available = [...available];
  lastChoice.coding = coding;
  return coding;
}

/**
 * The last choice made. A client sends the same `Accept-Encoding` on every request, and most
 * clients one of a few (a browser's `gzip, deflate, br, zstd`): the same value (compared as text)
 * and the same codings (compared one by one, kept as a copy) give the same answer, where parsing
 * the value made a map and a string for each coding on every answer.
 */
const lastChoice: {
  acceptEncoding: string | undefined;
  available: readonly ContentCoding[];
  coding: ContentCoding | "identity" | undefined;
} = { acceptEncoding: undefined, available: [], coding: undefined };

function sameCodings(codings: readonly ContentCoding[], kept: readonly ContentCoding[]): boolean {
  if (codings.length !== kept.length) return false;
  for (let index = 0; index < codings.length; index++) {
    if (codings[index] !== kept[index]) return false;
  }
  return true;
}

function chooseAmong(
  acceptEncoding: string,
  available: readonly ContentCoding[],
): ContentCoding | "identity" | undefined {
  const weights = parseAcceptEncoding(acceptEncoding);
  let chosen: ContentCoding | undefined;
  let best = 0;
  for (const coding of available) {
    const weight = weights.named.get(coding) ?? weights.anyOther ?? 0;
    if (weight > best) {
      best = weight;
      chosen = coding;
    }
  }
  // RFC 9110 §12.5.3: identity is acceptable unless `identity;q=0`, or `*;q=0` with identity not
  // named; `*` weighs it like any coding not named.
  const identityStated = weights.named.get("identity") ?? weights.anyOther;
  const identity = identityStated ?? 1;
  // A coding the client lists is preferred to no coding whose weight it did not state (`gzip;q=0.5`
  // alone), and one as good as identity wins the tie: the same content in fewer bytes. A weight
  // stated for identity, by name or through `*`, is weighed: `gzip;q=0.1, *` prefers identity.
  if (chosen !== undefined && (identityStated === undefined || best >= identity)) return chosen;
  return identity > 0 ? "identity" : undefined;
}

interface CodingWeights {
  /** Weights of the codings named, by lower-case name (the first mention of each counts). */
  readonly named: Map<string, number>;
  /** The weight of `*`, when present. */
  readonly anyOther: number | undefined;
}

/** Reads `coding [ ";" "q=" qvalue ]` members; a malformed member is skipped whole. */
function parseAcceptEncoding(value: string): CodingWeights {
  const named = new Map<string, number>();
  let anyOther: number | undefined;
  let index = 0;
  while (index < value.length) {
    index = skipListSeparators(value, index);
    const nameEnd = tokenEnd(value, index);
    const name = value.slice(index, nameEnd).toLowerCase();
    let at = skipWhitespace(value, nameEnd);
    let weight: number | undefined = 1;
    while (value.charCodeAt(at) === 0x3b) {
      at = skipWhitespace(value, at + 1);
      const parameterEnd = tokenEnd(value, at);
      const parameter = value.slice(at, parameterEnd).toLowerCase();
      at = parameterEnd;
      if (value.charCodeAt(at) !== 0x3d) {
        weight = undefined;
        break;
      }
      const valueEnd = tokenEnd(value, at + 1);
      if (parameter === "q") weight = qualityValue(value, at + 1, valueEnd);
      at = skipWhitespace(value, valueEnd);
    }
    const memberEnd = value.indexOf(",", at);
    const wellFormed = name !== "" && weight !== undefined && (memberEnd < 0 || memberEnd === at);
    const ended = at >= value.length;
    if (wellFormed && (ended || memberEnd === at)) {
      if (name === "*") anyOther ??= weight;
      else if (!named.has(name)) named.set(name, weight!);
    }
    if (memberEnd < 0) break;
    index = memberEnd + 1;
  }
  return { named, anyOther };
}
