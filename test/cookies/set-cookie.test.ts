import { describe, expect, test } from "bun:test";
import {
  type CookieOptions,
  expiredCookie,
  serializeSetCookie,
} from "../../src/cookies/set-cookie.ts";

const expires = new Date(Date.UTC(2026, 9, 21, 7, 28, 0));

describe("serializeSetCookie output", () => {
  test.each<[string, string, string, CookieOptions | undefined, string]>([
    ["plain pair", "id", "a3fWa", undefined, "id=a3fWa"],
    ["empty value", "a", "", undefined, "a="],
    ["quoted value kept verbatim", "a", '"xy"', {}, 'a="xy"'],
    ["empty quoted value", "a", '""', {}, 'a=""'],
    [
      "every cookie-octet",
      "a",
      "!#$%&'()*+-./09:<=>?@AZ[]^_`az{|}~",
      {},
      "a=!#$%&'()*+-./09:<=>?@AZ[]^_`az{|}~",
    ],
    ["every tchar in the name", "!#$%&'*+-.^_`|~09AZaz", "v", {}, "!#$%&'*+-.^_`|~09AZaz=v"],
    [
      "Expires as IMF-fixdate",
      "id",
      "1",
      { expires },
      "id=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
    ],
    ["Max-Age", "id", "1", { maxAge: 3600 }, "id=1; Max-Age=3600"],
    ["Max-Age 0", "id", "1", { maxAge: 0 }, "id=1; Max-Age=0"],
    ["negative Max-Age written as 0", "id", "1", { maxAge: -5 }, "id=1; Max-Age=0"],
    ["Domain", "id", "1", { domain: "example.com" }, "id=1; Domain=example.com"],
    [
      "leading dot of Domain dropped",
      "id",
      "1",
      { domain: ".example.com" },
      "id=1; Domain=example.com",
    ],
    [
      "Domain with digits and hyphens",
      "id",
      "1",
      { domain: "a-1.B2.example" },
      "id=1; Domain=a-1.B2.example",
    ],
    [
      "63-character label",
      "id",
      "1",
      { domain: `${"a".repeat(63)}.com` },
      `id=1; Domain=${"a".repeat(63)}.com`,
    ],
    ["IPv4 address as Domain", "id", "1", { domain: "192.0.2.1" }, "id=1; Domain=192.0.2.1"],
    ["Path", "id", "1", { path: "/docs/a%20b" }, "id=1; Path=/docs/a%20b"],
    ["Secure", "id", "1", { secure: true }, "id=1; Secure"],
    ["false flags are left out", "id", "1", { secure: false, httpOnly: false }, "id=1"],
    ["HttpOnly", "id", "1", { httpOnly: true }, "id=1; HttpOnly"],
    ["SameSite Strict", "id", "1", { sameSite: "Strict" }, "id=1; SameSite=Strict"],
    ["SameSite Lax", "id", "1", { sameSite: "Lax" }, "id=1; SameSite=Lax"],
    [
      "SameSite None with Secure",
      "id",
      "1",
      { sameSite: "None", secure: true },
      "id=1; Secure; SameSite=None",
    ],
    ["__Secure- with Secure", "__Secure-id", "1", { secure: true }, "__Secure-id=1; Secure"],
    [
      "__Host- done right",
      "__Host-id",
      "1",
      { secure: true, path: "/" },
      "__Host-id=1; Path=/; Secure",
    ],
  ])("%s", (_label, name, value, options, expected) => {
    expect(serializeSetCookie(name, value, options)).toBe(expected);
  });

  test("attributes follow Expires, Max-Age, Domain, Path, Secure, HttpOnly, SameSite", () => {
    const header = serializeSetCookie("id", "1", {
      sameSite: "Lax",
      httpOnly: true,
      secure: true,
      path: "/",
      domain: "example.com",
      maxAge: 60,
      expires,
    });
    expect(header).toBe(
      "id=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Max-Age=60; Domain=example.com; Path=/; " +
        "Secure; HttpOnly; SameSite=Lax",
    );
  });

  test("Expires is written in GMT whatever the Date's local zone", () => {
    const header = serializeSetCookie("id", "1", {
      expires: new Date("2026-10-21T09:28:00+02:00"),
    });
    expect(header).toBe("id=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT");
  });

  test("Expires accepts the first and last years of IMF-fixdate range", () => {
    expect(serializeSetCookie("a", "", { expires: new Date(Date.UTC(1601, 0, 1)) })).toBe(
      "a=; Expires=Mon, 01 Jan 1601 00:00:00 GMT",
    );
    expect(
      serializeSetCookie("a", "", { expires: new Date(Date.UTC(9999, 11, 31, 23, 59, 59)) }),
    ).toBe("a=; Expires=Fri, 31 Dec 9999 23:59:59 GMT");
  });
});

describe("serializeSetCookie rejections", () => {
  test.each<[string, string, string, CookieOptions, string]>([
    ["empty name", "", "v", {}, "cookie name is empty"],
    ["space in the name", "a b", "v", {}, 'cookie name "a b" contains a space at index 1'],
    ["= in the name", "a=b", "v", {}, 'cookie name "a=b" contains "=" at index 1'],
    [
      "; in the name",
      "a;",
      "v",
      {},
      'contains ";" at index 1; a cookie name must be an HTTP token',
    ],
    ["separator in the name", "a(b", "v", {}, 'contains "(" at index 1'],
    ["control in the name", "a\tb", "v", {}, "contains control character U+0009 at index 1"],
    ["non-ASCII name", "café", "v", {}, 'contains non-ASCII character "é" (U+00E9) at index 3'],
    ["space in the value", "a", "b c", {}, 'value of cookie "a" contains a space at index 1'],
    ["comma in the value", "a", "b,c", {}, 'contains "," at index 1'],
    ["semicolon in the value", "a", "b;c", {}, 'contains ";" at index 1'],
    ["backslash in the value", "a", "b\\c", {}, 'contains "\\" at index 1'],
    ["DQUOTE inside the value", "a", 'b"c', {}, 'contains """ at index 1'],
    ["lone DQUOTE", "a", '"', {}, 'contains """ at index 0'],
    ["unbalanced DQUOTE", "a", '"bc', {}, 'contains """ at index 0'],
    ["DQUOTE inside a quoted value", "a", '"b"c"', {}, 'contains """ at index 2'],
    ["space inside a quoted value", "a", '"b c"', {}, "contains a space at index 2"],
    ["CR LF in the value", "a", "b\r\nSet-Cookie: x=y", {}, "contains control character U+000D"],
    ["NUL in the value", "a", "b\0", {}, "contains control character U+0000 at index 1"],
    ["DEL in the value", "a", "b\x7f", {}, "contains control character U+007F"],
    ["non-ASCII value", "a", "naïve", {}, "encode the value, for example with encodeURIComponent"],
    [
      "invalid Date",
      "a",
      "",
      { expires: new Date(Number.NaN) },
      "cookie expires is an invalid Date",
    ],
    [
      "Expires before 1601",
      "a",
      "",
      { expires: new Date(Date.UTC(1600, 11, 31)) },
      "year 1600 is outside 1601 to 9999",
    ],
    [
      "Expires after 9999",
      "a",
      "",
      { expires: new Date(Date.UTC(10000, 0, 1)) },
      "year 10000 is outside",
    ],
    [
      "fractional maxAge",
      "a",
      "",
      { maxAge: 1.5 },
      "maxAge must be a whole number of seconds, not 1.5",
    ],
    ["NaN maxAge", "a", "", { maxAge: Number.NaN }, "not NaN"],
    ["infinite maxAge", "a", "", { maxAge: Number.POSITIVE_INFINITY }, "not Infinity"],
    [
      "path not starting with /",
      "a",
      "",
      { path: "docs" },
      'cookie path "docs" must start with "/"',
    ],
    ["empty path", "a", "", { path: "" }, 'cookie path "" must start with "/"'],
    ["; in the path", "a", "", { path: "/a;b" }, 'cookie path "/a;b" contains ";" at index 2'],
    ["CR in the path", "a", "", { path: "/a\rb" }, "contains control character U+000D at index 2"],
    ["non-ASCII path", "a", "", { path: "/café" }, 'non-ASCII character "é"'],
    ["empty domain", "a", "", { domain: "" }, 'cookie domain "" is not a valid domain name'],
    ["lone dot domain", "a", "", { domain: "." }, 'cookie domain "." is not a valid'],
    ["double dot domain", "a", "", { domain: "a..com" }, 'cookie domain "a..com" is not a valid'],
    ["trailing dot domain", "a", "", { domain: "example.com." }, "is not a valid domain name"],
    ["two leading dots", "a", "", { domain: "..example.com" }, "is not a valid domain name"],
    ["; in the domain", "a", "", { domain: "example.com;x" }, "is not a valid domain name"],
    ["underscore in the domain", "a", "", { domain: "a_b.com" }, "is not a valid domain name"],
    [
      "label starting with hyphen",
      "a",
      "",
      { domain: "-a.com" },
      "not starting or ending with a hyphen",
    ],
    ["label ending with hyphen", "a", "", { domain: "a-.com" }, "is not a valid domain name"],
    ["label over 63 characters", "a", "", { domain: `${"a".repeat(64)}.com` }, "labels of 1 to 63"],
    ["name over 253 characters", "a", "", { domain: `${"a.".repeat(127)}com` }, "is not a valid"],
    [
      "non-ASCII domain",
      "a",
      "",
      { domain: "bücher.de" },
      "encode internationalized names as punycode",
    ],
    [
      "SameSite None without Secure",
      "a",
      "",
      { sameSite: "None" },
      'sameSite: "None" needs secure: true',
    ],
    [
      "SameSite None with Secure false",
      "a",
      "",
      { sameSite: "None", secure: false },
      "needs secure: true",
    ],
    [
      "unknown SameSite",
      "a",
      "",
      { sameSite: "lax" as "Lax" },
      'sameSite must be "Strict", "Lax" or "None", not lax',
    ],
    [
      "__Secure- without Secure",
      "__Secure-id",
      "1",
      {},
      'cookie "__Secure-id" has the __Secure- prefix and needs secure: true',
    ],
    ["__secure- in any case", "__SECURE-id", "1", {}, "has the __Secure- prefix"],
    [
      "__Host- without Secure",
      "__Host-id",
      "1",
      { path: "/" },
      'cookie "__Host-id" has the __Host- prefix and needs secure: true, path: "/" and no domain',
    ],
    ["__Host- without Path", "__Host-id", "1", { secure: true }, "has the __Host- prefix"],
    [
      "__Host- with another Path",
      "__Host-id",
      "1",
      { secure: true, path: "/app" },
      "has the __Host- prefix",
    ],
    [
      "__Host- with Domain",
      "__Host-id",
      "1",
      { secure: true, path: "/", domain: "example.com" },
      "has the __Host- prefix",
    ],
    ["__host- in any case", "__host-id", "1", { path: "/" }, "has the __Host- prefix"],
  ])("%s", (_label, name, value, options, message) => {
    expect(() => serializeSetCookie(name, value, options)).toThrow(TypeError);
    expect(() => serializeSetCookie(name, value, options)).toThrow(message);
  });
});

describe("serializeSetCookie size limits (RFC 6265bis §5.6)", () => {
  test("name and value of exactly 4096 bytes pass; one more is a TypeError naming the size", () => {
    const name = "big";
    expect(serializeSetCookie(name, "v".repeat(4093))).toHaveLength(4097);
    expect(() => serializeSetCookie(name, "v".repeat(4094))).toThrow(
      'corral: cookie "big" is 4097 bytes of name and value; browsers ignore more than 4096 (RFC 6265bis §5.6)',
    );
  });

  test("a Path or Domain of exactly 1024 bytes passes; one more is a TypeError", () => {
    const path = `/${"p".repeat(1023)}`;
    expect(serializeSetCookie("a", "b", { path })).toEndWith(`Path=${path}`);
    expect(() => serializeSetCookie("a", "b", { path: `${path}p` })).toThrow(
      'corral: cookie "a" has a path of 1025 bytes; browsers ignore more than 1024',
    );
    const domain = `${"d".repeat(60)}.`.repeat(16).padEnd(1024, "e");
    expect(() => serializeSetCookie("a", "b", { domain: `${domain}x` })).toThrow(
      'corral: cookie "a" has a domain of 1025 bytes',
    );
  });
});

describe("expiredCookie", () => {
  test("writes an empty value, a 1970 Expires and Max-Age=0", () => {
    expect(expiredCookie("session")).toBe(
      "session=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0",
    );
  });

  test("keeps the path, domain and flags that identify the cookie", () => {
    expect(
      expiredCookie("session", {
        path: "/account",
        domain: "example.com",
        secure: true,
        httpOnly: true,
        sameSite: "None",
      }),
    ).toBe(
      "session=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Domain=example.com; " +
        "Path=/account; Secure; HttpOnly; SameSite=None",
    );
  });

  test("deletes a __Host- cookie given what its prefix requires", () => {
    expect(expiredCookie("__Host-session", { path: "/", secure: true })).toBe(
      "__Host-session=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; Secure",
    );
  });

  test("applies the same validation as serializeSetCookie", () => {
    expect(() => expiredCookie("a b")).toThrow('cookie name "a b" contains a space');
    expect(() => expiredCookie("__Host-session", { secure: true })).toThrow("__Host- prefix");
    expect(() => expiredCookie("id", { sameSite: "None" })).toThrow("needs secure: true");
    expect(() => expiredCookie("id", { path: "relative" })).toThrow('must start with "/"');
  });
});
