import { describe, expect, test } from "bun:test";
import enginePackage from "../engine/package.json";
import rootPackage from "../package.json";

describe("project shape", () => {
  test("the root package pins the engine at its exact version", () => {
    expect(rootPackage.dependencies["corral-engine"]).toBe(enginePackage.version);
  });

  test("Bun 1.4.4 is the declared runtime", () => {
    expect(rootPackage.packageManager).toBe("bun@1.4.4");
    expect(rootPackage.engines.bun).toBe(">=1.4.4");
    expect(rootPackage.workspaces).toEqual(["engine"]);
  });
});
