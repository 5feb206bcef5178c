import { expect, test } from "bun:test";
import { defaultCacheControl, hasContentHash } from "corral";

test("hasContentHash: a part of 8 or more ASCII letters and digits with a digit, after a . or -, before the extension", () => {
  const cases: Array<[string, boolean]> = [
    ["app.3f9a8c1d.js", true],
    ["assets/index-BXk3ZQ9a.css", true],
    ["index-BXk3ZQ9a.min.css", true],
    ["chunk-3f9a8c1d-vendor.js", true],
    ["app.abcd1234.js", true],
    // Seven letters and digits are not enough; `_` is neither a letter nor a digit.
    ["app.abc1234.js", false],
    ["app.abc_1234.js", false],
    ["app.3f9a8c1_.js", false],
    ["app.3f9a8c1d_.js", false],
    // After `_` (or anything but `.` and `-`), a run is no part of its own.
    ["app._3f9a8c1d.js", false],
    ["app_3f9a8c1d.js", false],
    ["app~3f9a8c1d.js", false],
    ["app.abcdefgh.js", false],
    ["3f9a8c1d.js", false],
    ["app.3f9a8c1d", false],
    ["report2024.pdf", false],
    ["dir.3f9a8c1d/app.js", false],
  ];
  expect(cases.map(([path]) => [path, hasContentHash(path)])).toEqual(cases);
  expect(defaultCacheControl({ path: "app.abc_1234.js", contentType: "text/javascript" })).toBe(
    "no-cache",
  );
});
