import { expect, test } from "bun:test";
import { canonicalPath, decodePathSegment } from "corral";

test("canonicalPath: decoded segments for clean paths, a named reason for every refused form", () => {
  const cases = [
    "",
    "a.txt",
    "dir/",
    "dir/sub/file.css",
    "caf%C3%A9.txt",
    "100%25.txt",
    "a%252eb",
    "..",
    ".",
    "%2e%2E",
    "a/../b",
    "a//b",
    "/a",
    "a%2fb",
    "a%5Cb",
    "a\\b",
    "a%00",
    "a%0A",
    "%7f",
    "%252e%252e",
    "%252fetc",
    "%255c",
    "%2500",
    "%",
    "%G1",
    "%C3%28",
    ".env",
    "%2eenv",
    "%252eenv",
    "dir/.git/config",
  ].map((raw) => {
    const result = canonicalPath(raw, { windowsNames: false });
    return [raw, result.ok ? result.path : result.reason];
  });
  expect(cases).toEqual([
    ["", { segments: [], trailingSlash: false }],
    ["a.txt", { segments: ["a.txt"], trailingSlash: false }],
    ["dir/", { segments: ["dir"], trailingSlash: true }],
    ["dir/sub/file.css", { segments: ["dir", "sub", "file.css"], trailingSlash: false }],
    ["caf%C3%A9.txt", { segments: ["café.txt"], trailingSlash: false }],
    ["100%25.txt", { segments: ["100%.txt"], trailingSlash: false }],
    ["a%252eb", { segments: ["a%2eb"], trailingSlash: false }],
    ["..", "dot-segment"],
    [".", "dot-segment"],
    ["%2e%2E", "dot-segment"],
    ["a/../b", "dot-segment"],
    ["a//b", "empty-segment"],
    ["/a", "empty-segment"],
    ["a%2fb", "encoded-separator"],
    ["a%5Cb", "backslash"],
    ["a\\b", "backslash"],
    ["a%00", "control-character"],
    ["a%0A", "control-character"],
    ["%7f", "control-character"],
    ["%252e%252e", "double-encoding"],
    ["%252fetc", "double-encoding"],
    ["%255c", "double-encoding"],
    ["%2500", "double-encoding"],
    ["%", "malformed-escape"],
    ["%G1", "malformed-escape"],
    ["%C3%28", "malformed-escape"],
    [".env", "dotfile"],
    ["%2eenv", "dotfile"],
    ["%252eenv", "double-encoding"],
    ["dir/.git/config", "dotfile"],
  ]);
});

test("canonicalPath: dotfiles when allowed; Windows names only when asked", () => {
  const allowed = canonicalPath(".well-known/x", { allowDotfiles: true, windowsNames: false });
  const windows = ["a:b", "PROGRA~1", "con", "Lpt1.txt", "a.", "a ", "ok~name"].map((raw) => {
    const result = canonicalPath(encodeURIComponent(raw), { windowsNames: true });
    return result.ok ? "ok" : result.reason;
  });
  const posix = canonicalPath("a%3Ab", { windowsNames: false });
  expect({ allowed: allowed.ok, windows, posix: posix.ok }).toEqual({
    allowed: true,
    windows: [
      "windows-name",
      "windows-name",
      "windows-name",
      "windows-name",
      "windows-name",
      "windows-name",
      "ok",
    ],
    posix: true,
  });
});

test("decodePathSegment decodes once and refuses what is not UTF-8", () => {
  expect(
    ["plain", "a%20b", "%25", "%E6%97%A5", "%FF", "%e", "é%20"].map(decodePathSegment),
  ).toEqual(["plain", "a b", "%", "日", undefined, undefined, undefined]);
});
