import { decodePathSegment } from "./canonical-path.ts";

/** One segment of a compiled path pattern. */
export type PatternSegment =
  | { readonly kind: "static"; readonly text: string }
  | { readonly kind: "capture"; readonly name: string }
  | { readonly kind: "rest"; readonly name: string };

/** A path pattern split into segments, checked once at registration. */
export interface PathPattern {
  readonly path: string;
  readonly segments: readonly PatternSegment[];
  readonly isStatic: boolean;
}

const namePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Compiles `"/users/:id/*rest"`: static segments, `:name` captures of one non-empty segment, and
 * a trailing `*name` capturing the rest of the path. Throws `TypeError` on a malformed pattern.
 */
export function compilePathPattern(path: string): PathPattern {
  if (!path.startsWith("/"))
    throw new TypeError(`corral: a route path must start with "/": ${path}`);
  const parts = path.slice(1).split("/");
  const names = new Set<string>();
  const segments = parts.map((part, index): PatternSegment => {
    if (part.startsWith(":") || part.startsWith("*")) {
      const name = part.slice(1);
      if (!namePattern.test(name)) {
        throw new TypeError(`corral: invalid capture name "${part}" in route ${path}`);
      }
      if (names.has(name))
        throw new TypeError(`corral: capture "${name}" repeats in route ${path}`);
      names.add(name);
      if (part.startsWith("*")) {
        if (index !== parts.length - 1) {
          throw new TypeError(`corral: "*${name}" must be the last segment of route ${path}`);
        }
        return { kind: "rest", name };
      }
      return { kind: "capture", name };
    }
    return { kind: "static", text: part };
  });
  return { path, segments, isStatic: names.size === 0 };
}

/**
 * Matches a request path against a dynamic pattern; returns the captures (each segment
 * percent-decoded once by the canonicalizer's `decodePathSegment`) or undefined. A capture with
 * a malformed escape or bytes that are not UTF-8 throws `URIError`. Captures are not canonical
 * paths: a handler that uses one as a file name checks it (or uses `canonicalPath`).
 */
export function matchPathPattern(
  pattern: PathPattern,
  pathParts: readonly string[],
): Record<string, string> | undefined {
  const segments = pattern.segments;
  const last = segments[segments.length - 1];
  const hasRest = last?.kind === "rest";
  if (hasRest ? pathParts.length < segments.length - 1 : pathParts.length !== segments.length) {
    return undefined;
  }
  const captures: Record<string, string> = {};
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    if (segment.kind === "rest") {
      const decoded: string[] = [];
      for (let at = index; at < pathParts.length; at++) {
        decoded.push(decodeCapture(pathParts[at]!));
      }
      captures[segment.name] = decoded.join("/");
      return captures;
    }
    const part = pathParts[index]!;
    if (segment.kind === "static") {
      if (part !== segment.text) return undefined;
    } else {
      if (part.length === 0) return undefined;
      captures[segment.name] = decodeCapture(part);
    }
  }
  return captures;
}

/** One captured segment, decoded once. */
function decodeCapture(raw: string): string {
  const decoded = decodePathSegment(raw);
  if (decoded === undefined) throw new URIError(`corral: malformed percent-encoding in ${raw}`);
  return decoded;
}
