import { describe, expect, test } from "bun:test";
import { validateRedirect } from "../../src/response/redirect.ts";

describe("validateRedirect accepts", () => {
  test.each([300, 301, 302, 303, 307, 308])("status %d", (status) => {
    expect(() => validateRedirect(status, "/next")).not.toThrow();
  });

  test.each([
    ["an absolute URL", "https://example.com/a/b?c=d#e"],
    ["a path", "/orders/42"],
    ["a relative path", "../up/one"],
    ["a query only", "?page=2"],
    ["a fragment only", "#top"],
    ["a network-path reference", "//cdn.example.com/x"],
    ["an IPv6 host", "http://[2001:db8::1]:8080/"],
    ["percent-encoding in either case", "/search?q=caf%C3%A9%2f"],
    ["every unreserved and reserved character", "/AZaz09-._~:/?#[]@!$&'()*+,;=%20"],
    ["what encodeURI produces", encodeURI("/search?q=café & crème")],
  ])("%s", (_label, location) => {
    expect(() => validateRedirect(302, location)).not.toThrow();
  });
});

describe("validateRedirect rejects", () => {
  test.each([200, 204, 304, 305, 306, 309, 400, 0, 302.5, Number.NaN])("status %d", (status) => {
    expect(() => validateRedirect(status, "/next")).toThrow(TypeError);
    expect(() => validateRedirect(status, "/next")).toThrow(
      `redirect status ${status} is not a redirect; use 300, 301, 302, 303, 307 or 308`,
    );
  });

  test.each([
    ["an empty location", "", "redirect location is empty"],
    ["CR", "/a\rb", "contains CR (U+000D) at index 2; a header value cannot carry it"],
    ["LF", "/a\nSet-Cookie: x=y", "contains LF (U+000A) at index 2"],
    ["CR LF", "/a\r\nb", "contains CR (U+000D) at index 2"],
    ["NUL", "/a\0", "contains NUL (U+0000) at index 2"],
    ["a tab", "/a\tb", "contains a control character (U+0009) at index 2"],
    ["DEL", "/a\x7f", "contains a control character (U+007F) at index 2"],
    ["a space", "/a b", "contains a space at index 2; percent-encode it as %20"],
    ["a leading space", " /a", "contains a space at index 0"],
    [
      "non-ASCII text",
      "/café",
      'contains the non-ASCII character "é" at index 4; encode the URL with encodeURI()',
    ],
    ["an astral character", "/😀", 'non-ASCII character "😀" at index 1'],
    [
      "a double quote",
      '/a"b',
      'contains """ at index 2, which is not allowed in a URI (RFC 3986 §2); percent-encode it',
    ],
    ["a backslash", "/\\evil.example", 'contains "\\" at index 1, which is not allowed in a URI'],
    ["a less-than sign", "/<script>", 'contains "<" at index 1'],
    ["a greater-than sign", "/a>", 'contains ">" at index 2'],
    ["a caret", "/a^b", "percent-encode it as %5E"],
    ["a backtick", "/a`b", "percent-encode it as %60"],
    ["a brace", "/a{b}", 'contains "{" at index 2'],
    ["a pipe", "/a|b", "percent-encode it as %7C"],
    [
      "a bare percent sign",
      "/100%",
      'has "%" not followed by two hex digits at index 4; encode a literal percent sign as %25',
    ],
    [
      "a percent sign with one hex digit",
      "/a%2",
      'has "%" not followed by two hex digits at index 2',
    ],
    [
      "a percent sign with non-hex digits",
      "/a%zz",
      'has "%" not followed by two hex digits at index 2',
    ],
  ])("%s", (_label, location, message) => {
    expect(() => validateRedirect(302, location)).toThrow(TypeError);
    expect(() => validateRedirect(302, location)).toThrow(message);
  });

  test("the status is checked before the location", () => {
    expect(() => validateRedirect(200, "")).toThrow("redirect status 200 is not a redirect");
  });
});
