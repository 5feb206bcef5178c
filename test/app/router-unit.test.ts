// The router on its own: static paths, the remembered last match, dynamic patterns, HEAD; the
// pattern matcher against the split-based matcher it replaced.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { decodePathSegment } from "../../src/router/canonical-path.ts";
import {
  compilePathPattern,
  matchPathPattern,
  type PathPattern,
} from "../../src/router/path-pattern.ts";
import { Router } from "../../src/router/router.ts";

function found(router: Router<string>, method: string, path: string): string | undefined {
  const result = router.find(method, path);
  return result.kind === "found" ? result.handler : result.kind;
}

describe("Router", () => {
  test("a repeated request gets the same answer; another method or path is looked up afresh", () => {
    const router = new Router<string>();
    router.add("GET", "/a", "get a");
    router.add("GET", "/b", "get b");
    router.add("GET", "/users/:id", "get user");
    expect(found(router, "GET", "/a")).toBe("get a");
    expect(found(router, "GET", "/a")).toBe("get a");
    expect(found(router, "POST", "/a")).toBe("methodNotAllowed");
    expect(found(router, "HEAD", "/a")).toBe("get a");
    expect(found(router, "GET", "/b")).toBe("get b");
    expect(found(router, "GET", "/users/7")).toBe("get user");
    expect(found(router, "GET", "/a")).toBe("get a");
    expect(found(router, "GET", "/c")).toBe("notFound");
  });

  test("a route added after a lookup is seen by the next lookup", () => {
    const router = new Router<string>();
    router.add("GET", "/a", "get a");
    // HEAD falls back to GET until a HEAD handler exists; the remembered match must not outlive that.
    expect(found(router, "HEAD", "/a")).toBe("get a");
    router.add("HEAD", "/a", "head a");
    expect(found(router, "HEAD", "/a")).toBe("head a");
    expect(found(router, "GET", "/a")).toBe("get a");
    router.add("POST", "/a", "post a");
    expect(found(router, "POST", "/a")).toBe("post a");
    const result = router.find("PUT", "/a");
    expect(result.kind === "methodNotAllowed" && result.allow).toBe("GET, HEAD, POST, OPTIONS");
  });

  test("the first route matching the path that serves the method wins; a 405 allows what they all serve", () => {
    const router = new Router<string>();
    router.add("GET", "/items/:id", "get item");
    router.add("DELETE", "/items/:itemId", "delete item");
    router.add("GET", "/users/me", "get me");
    router.add("DELETE", "/users/:id", "delete user");
    router.add("PUT", "/users/:name", "put user");
    expect([
      found(router, "GET", "/items/7"),
      found(router, "DELETE", "/items/7"),
      found(router, "GET", "/users/me"),
      found(router, "DELETE", "/users/me"),
      found(router, "PUT", "/users/me"),
      found(router, "GET", "/users/ada"),
    ]).toEqual([
      "get item",
      "delete item",
      "get me",
      "delete user",
      "put user",
      "methodNotAllowed",
    ]);
    const allows = ["/items/7", "/users/me", "/users/ada"].map((path) => {
      const result = router.find("PATCH", path);
      return result.kind === "methodNotAllowed" ? result.allow : result.kind;
    });
    expect(allows).toEqual([
      "GET, DELETE, HEAD, OPTIONS",
      "GET, DELETE, PUT, HEAD, OPTIONS",
      "DELETE, PUT, OPTIONS",
    ]);
    const params = router.find("DELETE", "/items/7");
    expect(params.kind === "found" && params.params).toEqual({ itemId: "7" });
  });
});

/**
 * The matcher before it read the path in place: the path split at every `/`, then compared
 * segment by segment. Kept here as the reference the in-place matcher must agree with.
 */
function matchBySplitting(
  pattern: PathPattern,
  path: string,
): Record<string, string> | "malformed" | undefined {
  const parts = path.slice(1).split("/");
  const segments = pattern.segments;
  const hasRest = segments[segments.length - 1]?.kind === "rest";
  if (hasRest ? parts.length < segments.length - 1 : parts.length !== segments.length) {
    return undefined;
  }
  const captures: Record<string, string> = {};
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    if (segment.kind === "rest") {
      const decoded = parts.slice(index).map(decodePathSegment);
      if (decoded.includes(undefined)) return "malformed";
      captures[segment.name] = decoded.join("/");
      return captures;
    }
    const part = parts[index]!;
    if (segment.kind === "static") {
      if (part !== segment.text) return undefined;
    } else {
      if (part.length === 0) return undefined;
      const decoded = decodePathSegment(part);
      if (decoded === undefined) return "malformed";
      captures[segment.name] = decoded;
    }
  }
  return captures;
}

function matchOrMalformed(
  pattern: PathPattern,
  path: string,
): Record<string, string> | "malformed" | undefined {
  try {
    return matchPathPattern(pattern, path);
  } catch (error) {
    if (error instanceof URIError) return "malformed";
    throw error;
  }
}

describe("matchPathPattern", () => {
  const patterns = [
    "/users/:id",
    "/users/:id/posts/:post",
    "/files/*rest",
    "/*rest",
    "/a/:x/b",
    "/:x",
    "/:x/:y",
    "/a/b/*rest",
  ].map(compilePathPattern);

  test("agrees with splitting the path first, on every pattern and any path", () => {
    const segment = fc.oneof(
      fc.constantFrom("users", "posts", "files", "a", "b", "", "7", "%41", "%zz", "%C3%A9", "%FF"),
      fc.string({ unit: fc.constantFrom("a", "b", "%", "2", "F", "."), maxLength: 4 }),
    );
    const path = fc.array(segment, { maxLength: 6 }).map((parts) => `/${parts.join("/")}`);
    fc.assert(
      fc.property(path, (text) => {
        for (const pattern of patterns) {
          const expected = matchBySplitting(pattern, text);
          const actual = matchOrMalformed(pattern, text);
          if (JSON.stringify(actual) !== JSON.stringify(expected)) {
            throw new Error(`${pattern.path} on ${text}: ${JSON.stringify(actual)}`);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  test("reads captures, a trailing slash and the rest as the routes promise", () => {
    const [user, post, files] = patterns;
    expect(matchPathPattern(user!, "/users/12345")).toEqual({ id: "12345" });
    expect(matchPathPattern(user!, "/users/12345/")).toBeUndefined();
    expect(matchPathPattern(user!, "/users/")).toBeUndefined();
    expect(matchPathPattern(post!, "/users/7/posts/caf%C3%A9")).toEqual({ id: "7", post: "café" });
    expect(matchPathPattern(files!, "/files")).toEqual({ rest: "" });
    expect(matchPathPattern(files!, "/files/a//b%20c/")).toEqual({ rest: "a//b c/" });
    expect(() => matchPathPattern(files!, "/files/a/%FF")).toThrow(URIError);
  });
});
