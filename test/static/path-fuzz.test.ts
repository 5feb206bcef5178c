// Seeded random request paths into a served folder, checked against a model of the rules in
// docs/static-files.md: each path is made of the fixture's names (files, folders, dotfiles,
// symlinks out and in), `.`, `..` and empty segments, its characters sent raw where a target may
// hold them and otherwise percent-encoded, sometimes encoded when they need not be or encoded
// twice, its separators sometimes encoded. The model decodes once: a segment that is empty, `.`
// or `..`, starts with a dot, or holds a separator or NUL is a 404; a visible file is served
// whole; a visible folder is its index.html with a slash, a 308 adding the slash without one.
// Whatever the path, no byte from outside the folder or from a dotfile is ever sent.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { test } from "bun:test";
import {
  caseSeed,
  expectNoMismatches,
  masterSeed,
  SeededRandom,
} from "../../engine/test/support/seeded-random.ts";
import { makeFixture, rawRequest, secretText, serveFiles } from "./support/static-fixture.ts";

const cases = 400;

/** What the model serves under the folder: files by path, and folders (with their index). */
const visibleFiles = new Map<string, string>([
  ["a.txt", "hello\n"],
  ["index.html", "<h1>home</h1>\n"],
  ["sub/index.html", "<h1>sub</h1>\n"],
  ["sub/page.txt", "sub page\n"],
  ["empty/keep.txt", "kept\n"],
  ["with space.txt", "space\n"],
  ["100%.txt", "percent\n"],
  ["hash#.txt", "hash\n"],
  ["café.txt", "accent\n"],
  ["日本.txt", "nihon\n"],
  ["a%2eb.txt", "literal escape\n"],
  ["empty.txt", ""],
  ["data.json", '{"ok":true}\n'],
  ["noext", "bytes\n"],
  ["link.txt", "hello\n"],
  ["linkdir/index.html", "<h1>sub</h1>\n"],
  ["linkdir/page.txt", "sub page\n"],
]);
const visibleFolders = new Set(["", "sub", "empty", "linkdir"]);
/** Names to build paths from: visible ones, hidden ones, ones that lead out, and missing ones. */
const names = [
  ...new Set([...visibleFiles.keys()].flatMap((path) => path.split("/"))),
  "sub",
  "empty",
  "linkdir",
  ".env",
  ".git",
  "config",
  ".hidden",
  "out.txt",
  "outdir",
  "secret.txt",
  "public-private",
  "x.txt",
  "dotlink.txt",
  "missing",
  "..",
  ".",
  "",
];
/** Characters a request target may carry raw in a path segment (RFC 3986 pchar). */
const rawAllowed = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/;

const hex = (byte: number, lower: boolean) => {
  const digits = byte.toString(16).toUpperCase().padStart(2, "0");
  return `%${lower ? digits.toLowerCase() : digits}`;
};

/** `text` as a path segment of a target: raw, encoded once, or (one character) encoded twice. */
function encodeSegment(text: string, random: SeededRandom): { sent: string; decoded: string } {
  let sent = "";
  let decoded = "";
  for (const character of text) {
    const bytes = new TextEncoder().encode(character);
    const twice = random.oneIn(14);
    if (twice) {
      // %25 is the percent sign: decoded once, the segment holds the escape as text.
      const once = [...bytes].map((byte) => hex(byte, random.oneIn(2))).join("");
      sent += once.replaceAll("%", "%25");
      decoded += once;
    } else if (rawAllowed.test(character) && !random.oneIn(4)) {
      sent += character;
      decoded += character;
    } else {
      sent += [...bytes].map((byte) => hex(byte, random.oneIn(2))).join("");
      decoded += character;
    }
  }
  return { sent, decoded };
}

interface Planned {
  readonly target: string;
  readonly status: number;
  readonly body?: string;
  readonly location?: string;
}

/** A random target and what the model says it gets. */
function plan(random: SeededRandom): Planned {
  // Half the paths name a visible file, so that what must be served is tried as often as the rest.
  const segments = random.oneIn(2)
    ? random.pick([...visibleFiles.keys()]).split("/")
    : Array.from({ length: random.between(0, 4) }, () => random.pick(names));
  let sentPath = "/files";
  const decoded: string[] = [];
  let encodedSeparator = false;
  segments.forEach((segment, index) => {
    const separator =
      index > 0 && random.oneIn(12) ? random.pick(["%2f", "%2F", "%5c", "%5C"]) : "/";
    const encoded = encodeSegment(segment, random);
    if (separator === "/") {
      sentPath += `/${encoded.sent}`;
      decoded.push(encoded.decoded);
    } else {
      // An encoded separator joins two names into one segment holding a separator.
      sentPath += `${separator}${encoded.sent}`;
      encodedSeparator = true;
      decoded[decoded.length - 1] += `/${encoded.decoded}`;
    }
  });
  let trailingSlash = random.oneIn(4);
  if (trailingSlash) sentPath += "/";
  // A last empty segment is a trailing slash ("/files/sub/" is the folder, not an empty name).
  if (!trailingSlash && decoded.length > 0 && decoded[decoded.length - 1] === "") {
    decoded.pop();
    trailingSlash = true;
  }
  const query = random.oneIn(6) ? "?v=1" : "";
  const target = sentPath + query;
  const refused =
    encodedSeparator ||
    decoded.some(
      (segment) =>
        segment === "" ||
        segment.startsWith(".") ||
        segment.includes("/") ||
        segment.includes("\\") ||
        segment.includes("\0"),
    );
  if (refused) return { target, status: 404 };
  const path = decoded.join("/");
  if (visibleFolders.has(path)) {
    if (!trailingSlash && path !== "")
      return { target, status: 308, location: `${sentPath}/${query}` };
    if (!trailingSlash) return { target, status: 308, location: `/files/${query}` };
    const index = visibleFiles.get(path === "" ? "index.html" : `${path}/index.html`);
    return index === undefined ? { target, status: 404 } : { target, status: 200, body: index };
  }
  const body = visibleFiles.get(path);
  if (body === undefined || trailingSlash) return { target, status: 404 };
  return { target, status: 200, body };
}

test(`${cases} random paths into a served folder: every answer is the model's, and nothing from outside or a dotfile leaks (seed ${masterSeed})`, async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root });
  const mismatches: unknown[] = [];
  for (let index = 0; index < cases; index++) {
    const seed = caseSeed("static-paths", index);
    const planned = plan(new SeededRandom(seed));
    const response = await rawRequest(server.port, planned.target);
    const got: Planned = {
      target: planned.target,
      status: response.status,
      ...(planned.body === undefined ? {} : { body: response.text }),
      ...(planned.location === undefined ? {} : { location: response.header("location") }),
    };
    if (response.text.includes(secretText)) mismatches.push({ seed, leaked: planned.target });
    if (!Bun.deepEquals(got, planned)) mismatches.push({ seed, planned, got });
  }
  expectNoMismatches(mismatches);
});
