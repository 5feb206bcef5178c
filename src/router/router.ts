import { compilePathPattern, matchPathPattern, type PathPattern } from "./path-pattern.ts";

/** Methods an endpoint instance may implement, by their lower-case method names. */
export const endpointMethods = [
  "get",
  "post",
  "put",
  "patch",
  "delete",
  "head",
  "options",
] as const;

/** A route's handlers by upper-case method, and the `Allow` value they make. */
export interface RouteEntry<Handler> {
  readonly pattern: PathPattern;
  readonly handlers: Map<string, Handler>;
  allow: string;
  /** For static paths: the result of each method, made once instead of per request. */
  readonly staticResults: Map<string, RouteResult<Handler>>;
}

/** What the router found for a method and path. */
export type RouteResult<Handler> =
  | {
      readonly kind: "found";
      readonly handler: Handler;
      readonly params: Record<string, string>;
      readonly entry: RouteEntry<Handler>;
    }
  | {
      readonly kind: "methodNotAllowed";
      /** The methods every route matching the path serves, as an `Allow` value. */
      readonly allow: string;
    }
  | { readonly kind: "notFound" };

/**
 * The App's one router: static paths in a map checked first, then dynamic patterns in
 * registration order; the first route matching the path that serves the method wins, so
 * `GET /users/me` and `DELETE /users/:id` both answer `/users/me`. A path some routes match but
 * none for the method is a 405 whose `Allow` lists what they all serve. HEAD falls back to GET
 * (RFC 9110 §9.3.2).
 */
export class Router<Handler> {
  readonly #static = new Map<string, RouteEntry<Handler>>();
  readonly #dynamic: RouteEntry<Handler>[] = [];
  readonly #byPath = new Map<string, RouteEntry<Handler>>();
  /** Every method some route implements. */
  readonly methods = new Set<string>();
  /** The `Allow` value for the whole server (`OPTIONS *`): every method some route serves. */
  allow = allowValue([]);
  // The last static match: keep-alive clients repeat their paths, and the engine hands the same
  // string for a repeated path, so two identity checks replace two map lookups.
  #lastMethod = "";
  #lastPath = "";
  #lastResult: RouteResult<Handler> | undefined;

  /** Registers `handler` for `method` on `path`; a second registration of the pair throws. */
  add(method: string, path: string, handler: Handler): void {
    let entry = this.#byPath.get(path);
    if (entry?.handlers.has(method)) {
      throw new TypeError(`corral: ${method} ${path} is registered twice`);
    }
    const pattern = entry?.pattern ?? compilePathPattern(path);
    if (!pattern.isStatic) this.#refuseShadowed(method, pattern);
    if (entry === undefined) {
      entry = { pattern, handlers: new Map(), allow: "", staticResults: new Map() };
      this.#byPath.set(path, entry);
      if (pattern.isStatic) this.#static.set(path, entry);
      else this.#dynamic.push(entry);
    }
    entry.handlers.set(method, handler);
    this.methods.add(method);
    this.allow = allowValue(this.methods);
    entry.allow = allowValue(entry.handlers.keys());
    entry.staticResults.clear();
    this.#lastPath = "";
    this.#lastResult = undefined;
  }

  /**
   * A pattern every path of which an earlier pattern of the same method matches could never run:
   * the earlier wins them all. `/users/:name` after `/users/:id` (the same paths), and
   * `/api/:id` after `/*path` (a folder of files mounted at `/`), are errors at registration,
   * not routes that answer 404 without a word. An earlier `GET` answers `HEAD` too (RFC 9110
   * §9.3.2), so it shadows a later `HEAD` it covers.
   */
  #refuseShadowed(method: string, added: PathPattern): void {
    for (const entry of this.#dynamic) {
      if (entry.pattern === added || handlerFor(entry, method) === undefined) continue;
      if (!coversPattern(entry.pattern, added)) continue;
      const earlier = entry.handlers.has(method) ? method : "GET";
      const what =
        patternShape(entry.pattern) === patternShape(added)
          ? "matches the same paths"
          : "matches every path it does";
      throw new TypeError(
        `corral: ${method} ${added.path} could never run: ${earlier} ` +
          `${entry.pattern.path}, registered first, ` +
          (earlier === method
            ? `${what}; register ${method} ${added.path} before it`
            : `answers ${method} on the same paths; register ${method} ${entry.pattern.path}`),
      );
    }
  }

  /** Finds the handler for `method` on `path` (a raw, still-encoded path). */
  find(method: string, path: string): RouteResult<Handler> {
    const last = this.#lastResult;
    if (last !== undefined && path === this.#lastPath && method === this.#lastMethod) return last;
    return this.#lookUp(method, path);
  }

  // Apart from find, so that find stays small enough for JavaScriptCore to inline its usual
  // path (the last match again) into the caller.
  #lookUp(method: string, path: string): RouteResult<Handler> {
    const staticEntry = this.#static.get(path);
    if (staticEntry !== undefined) {
      let result = staticEntry.staticResults.get(method);
      if (result === undefined) {
        const handler = handlerFor(staticEntry, method);
        // A pattern may serve this method on the same path (DELETE /users/:id for /users/me).
        if (handler === undefined) return this.#findPattern(method, path, staticEntry);
        result = { kind: "found", handler, params: emptyParams, entry: staticEntry };
        // Only methods some route serves are kept, so the map stays as small as the route table.
        staticEntry.staticResults.set(method, result);
      }
      this.#lastMethod = method;
      this.#lastPath = path;
      this.#lastResult = result;
      return result;
    }
    return this.#findPattern(method, path, undefined);
  }

  /** The first pattern matching `path` that serves `method`; `refused` matched but did not. */
  #findPattern(
    method: string,
    path: string,
    refused: RouteEntry<Handler> | undefined,
  ): RouteResult<Handler> {
    // Made only on a miss: a found route (the common case) allocates nothing here.
    let matched: RouteEntry<Handler>[] | undefined = refused === undefined ? undefined : [refused];
    // Only an origin path can match a pattern: "*" (OPTIONS *) is no path of any route.
    if (path.charCodeAt(0) === slash) {
      for (const entry of this.#dynamic) {
        const params = matchPathPattern(entry.pattern, path);
        if (params === undefined) continue;
        const handler = handlerFor(entry, method);
        if (handler !== undefined) return { kind: "found", handler, params, entry };
        if (matched === undefined) matched = [entry];
        else matched.push(entry);
      }
    }
    if (matched === undefined) return notFound;
    if (matched.length === 1) return { kind: "methodNotAllowed", allow: matched[0]!.allow };
    return {
      kind: "methodNotAllowed",
      allow: allowValue(matched.flatMap((entry) => [...entry.handlers.keys()])),
    };
  }
}

const slash = 0x2f;
const emptyParams: Record<string, string> = Object.freeze({}) as Record<string, string>;
const notFound = { kind: "notFound" } as const;

function handlerFor<Handler>(entry: RouteEntry<Handler>, method: string): Handler | undefined {
  return entry.handlers.get(method) ?? (method === "HEAD" ? entry.handlers.get("GET") : undefined);
}

function allowValue(served: Iterable<string>): string {
  const methods = new Set(served);
  if (methods.has("GET")) methods.add("HEAD");
  methods.add("OPTIONS");
  return [...methods].join(", ");
}

/**
 * Whether every path `later` matches, `earlier` matches too. A capture takes one non-empty
 * segment and a final `*rest` any number, none included; static segments compare as written.
 */
function coversPattern(earlier: PathPattern, later: PathPattern): boolean {
  const covering = earlier.segments;
  const covered = later.segments;
  const earlierRest = covering[covering.length - 1]?.kind === "rest";
  const laterRest = covered[covered.length - 1]?.kind === "rest";
  // The segments before a rest (or all of them) must be there in every path of `later`.
  const fixed = earlierRest ? covering.length - 1 : covering.length;
  const laterFixed = laterRest ? covered.length - 1 : covered.length;
  if (earlierRest ? laterFixed < fixed : laterRest || laterFixed !== fixed) return false;
  for (let index = 0; index < fixed; index++) {
    const segment = covering[index]!;
    const other = covered[index]!;
    if (segment.kind === "capture") {
      if (other.kind === "static" && other.text === "") return false;
    } else if (
      segment.kind !== "static" ||
      other.kind !== "static" ||
      other.text !== segment.text
    ) {
      return false;
    }
  }
  return true;
}

/** A pattern without its capture names: two patterns of one shape match the same paths. */
function patternShape(pattern: PathPattern): string {
  let shape = "";
  for (const segment of pattern.segments) {
    shape +=
      segment.kind === "static" ? `/${segment.text}` : segment.kind === "capture" ? "/:" : "/*";
  }
  return shape;
}
