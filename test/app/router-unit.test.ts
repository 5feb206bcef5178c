// The router on its own: static paths, the remembered last match, dynamic patterns, HEAD.
import { describe, expect, test } from "bun:test";
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
    expect(result.kind === "methodNotAllowed" && result.entry.allow).toBe(
      "GET, HEAD, POST, OPTIONS",
    );
  });
});
