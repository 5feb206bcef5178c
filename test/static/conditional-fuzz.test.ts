// Seeded random combinations of the conditional headers, Range, If-Range, HEAD and
// Accept-Encoding against one file with a precompressed variant, over TCP, compared with a
// reference written from RFC 9110 §13.2.2 (the order of evaluation), §13.1 (each condition) and
// §14 (ranges): the status, the validator, Content-Range, Content-Encoding and the bytes.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { expect, test } from "bun:test";
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { caseSeed, masterSeed, SeededRandom } from "../../engine/test/support/seeded-random.ts";
import { makeFixture, rawRequest, serveFiles } from "./support/static-fixture.ts";

const cases = 400;
const size = 1000;
const content = new Uint8Array(Buffer.from("0123456789".repeat(size / 10)));
const compressed = "BROTLI-BYTES";
const modified = new Date("2026-01-02T03:04:05Z");
const modifiedText = "Fri, 02 Jan 2026 03:04:05 GMT";
const dates = {
  same: modifiedText,
  // RFC 9110 §5.6.7: a recipient takes the two obsolete forms too.
  sameObsolete: "Friday, 02-Jan-26 03:04:05 GMT",
  sameAsctime: "Fri Jan  2 03:04:05 2026",
  earlier: "Thu, 01 Jan 2026 00:00:00 GMT",
  later: "Sat, 03 Jan 2026 00:00:00 GMT",
  invalid: "yesterday",
} as const;
type DateName = keyof typeof dates;
const dateNames = Object.keys(dates) as DateName[];
const dateSeconds = (name: DateName) =>
  name === "invalid"
    ? undefined
    : Math.floor(
        Date.parse(dates[name === "sameObsolete" || name === "sameAsctime" ? "same" : name]) / 1000,
      );

type TagName = "star" | "current" | "weakCurrent" | "other" | "listWithCurrent" | "otherVariant";
const tagNames: readonly TagName[] = [
  "star",
  "current",
  "weakCurrent",
  "other",
  "listWithCurrent",
  "otherVariant",
];
const ranges = {
  first100: { header: "bytes=0-99", parts: [[0, 99]] },
  suffix100: { header: "bytes=-100", parts: [[900, 999]] },
  open: { header: "bytes=900-", parts: [[900, 999]] },
  beyond: { header: "bytes=2000-", parts: "unsatisfiable" },
  backwards: { header: "bytes=5-1", parts: "invalid" },
  two: {
    header: "bytes=0-9,500-509",
    parts: [
      [0, 9],
      [500, 509],
    ],
  },
} as const;
type RangeName = keyof typeof ranges;
const rangeNames = Object.keys(ranges) as RangeName[];

interface Case {
  readonly method: "GET" | "HEAD";
  readonly compressed: boolean;
  readonly ifMatch?: TagName;
  readonly ifNoneMatch?: TagName;
  readonly ifModifiedSince?: DateName;
  readonly ifUnmodifiedSince?: DateName;
  readonly range?: RangeName;
  readonly ifRange?: TagName | DateName;
}

function draw(random: SeededRandom): Case {
  const maybe = <T>(items: readonly T[]) => (random.oneIn(2) ? undefined : random.pick(items));
  const range = maybe(rangeNames);
  return {
    method: random.oneIn(5) ? "HEAD" : "GET",
    // A range is always served from the file itself, so a variant is asked for only without one.
    compressed: range === undefined && random.oneIn(3),
    ifMatch: random.oneIn(3) ? random.pick(tagNames) : undefined,
    ifNoneMatch: random.oneIn(3) ? random.pick(tagNames) : undefined,
    ifModifiedSince: random.oneIn(3) ? random.pick(dateNames) : undefined,
    ifUnmodifiedSince: random.oneIn(3) ? random.pick(dateNames) : undefined,
    range,
    ifRange:
      range !== undefined && random.oneIn(2)
        ? random.pick<TagName | DateName>([...tagNames, ...dateNames])
        : undefined,
  };
}

interface Tags {
  readonly identity: string;
  readonly variant: string;
}

function tagText(name: TagName, current: string, other: string): string {
  switch (name) {
    case "star":
      return "*";
    case "current":
      return current;
    case "weakCurrent":
      return `W/${current}`;
    case "other":
      return '"no-such-tag"';
    case "listWithCurrent":
      return `"no-such-tag", ${current}`;
    case "otherVariant":
      return other;
  }
}

function headersOf(request: Case, tags: Tags): Record<string, string> {
  const current = request.compressed ? tags.variant : tags.identity;
  const other = request.compressed ? tags.identity : tags.variant;
  const headers: Record<string, string> = {};
  if (request.compressed) headers["Accept-Encoding"] = "br";
  if (request.ifMatch) headers["If-Match"] = tagText(request.ifMatch, current, other);
  if (request.ifNoneMatch) headers["If-None-Match"] = tagText(request.ifNoneMatch, current, other);
  if (request.ifModifiedSince) headers["If-Modified-Since"] = dates[request.ifModifiedSince];
  if (request.ifUnmodifiedSince) headers["If-Unmodified-Since"] = dates[request.ifUnmodifiedSince];
  if (request.range) headers.Range = ranges[request.range].header;
  if (request.ifRange) {
    headers["If-Range"] =
      request.ifRange in dates
        ? dates[request.ifRange as DateName]
        : tagText(request.ifRange as TagName, current, other);
  }
  return headers;
}

interface Answer {
  readonly status: number;
  readonly etag?: string;
  readonly contentRange?: string;
  readonly contentEncoding?: string;
  readonly body?: string;
}

/** RFC 9110 §13.2.2, step by step, then §14 for the range. */
function reference(request: Case, tags: Tags): Answer {
  const etag = request.compressed ? tags.variant : tags.identity;
  const lastModified = Math.floor(modified.getTime() / 1000);
  const matches = (name: TagName, weak: boolean) =>
    name === "star" ||
    ((name === "current" || name === "listWithCurrent") && true) ||
    (name === "weakCurrent" && weak);
  // 1. If-Match: a strong comparison; "*" matches a current representation.
  if (request.ifMatch !== undefined && !matches(request.ifMatch, false)) return { status: 412 };
  // 2. If-Unmodified-Since, only without If-Match; an invalid date is ignored.
  if (request.ifMatch === undefined && request.ifUnmodifiedSince !== undefined) {
    const since = dateSeconds(request.ifUnmodifiedSince);
    if (since !== undefined && lastModified > since) return { status: 412 };
  }
  // 3. If-None-Match: a weak comparison; a GET or HEAD that matches is a 304.
  if (request.ifNoneMatch !== undefined) {
    if (matches(request.ifNoneMatch, true)) return { status: 304, etag };
  } else if (request.ifModifiedSince !== undefined) {
    // 4. If-Modified-Since, only without If-None-Match.
    const since = dateSeconds(request.ifModifiedSince);
    if (since !== undefined && lastModified <= since) return { status: 304, etag };
  }
  const whole: Answer = {
    status: 200,
    etag,
    ...(request.compressed ? { contentEncoding: "br" } : {}),
    body:
      request.method === "HEAD"
        ? ""
        : request.compressed
          ? compressed
          : Buffer.from(content).toString(),
  };
  // 5. Range, for GET only; If-Range takes a strong tag or the exact date, else the whole file.
  if (request.range === undefined || request.method === "HEAD") return whole;
  if (request.ifRange !== undefined) {
    const ifRange = request.ifRange;
    const valid =
      ifRange in dates ? dateSeconds(ifRange as DateName) === lastModified : ifRange === "current";
    if (!valid) return whole;
  }
  const parts = ranges[request.range].parts;
  if (parts === "invalid") return whole;
  if (parts === "unsatisfiable") return { status: 416, contentRange: `bytes */${size}` };
  if (parts.length > 1) return { status: 206, etag };
  const [first, last] = parts[0]!;
  return {
    status: 206,
    etag,
    contentRange: `bytes ${first}-${last}/${size}`,
    body: Buffer.from(content.subarray(first, last + 1)).toString(),
  };
}

test(`${cases} random conditional and range requests: answered as RFC 9110 says (seed ${masterSeed})`, async () => {
  using fixture = makeFixture();
  writeFileSync(join(fixture.root, "f.txt"), content);
  writeFileSync(join(fixture.root, "f.txt.br"), compressed);
  utimesSync(join(fixture.root, "f.txt"), modified, modified);
  utimesSync(join(fixture.root, "f.txt.br"), modified, modified);
  await using server = serveFiles({ root: fixture.root });
  const identity = (await rawRequest(server.port, "/files/f.txt")).header("etag")!;
  const variant = (
    await rawRequest(server.port, "/files/f.txt", { "Accept-Encoding": "br" })
  ).header("etag")!;
  const tags = { identity, variant };
  const mismatches: unknown[] = [];
  const statuses = new Set<number>();
  for (let index = 0; index < cases; index++) {
    const seed = caseSeed("conditionals", index);
    const request = draw(new SeededRandom(seed));
    const headers = headersOf(request, tags);
    const response = await rawRequest(server.port, "/files/f.txt", headers, request.method);
    const expected = reference(request, tags);
    statuses.add(expected.status);
    const seen: Answer = {
      status: response.status,
      ...(expected.etag === undefined ? {} : { etag: response.header("etag") }),
      ...(expected.contentRange === undefined
        ? {}
        : { contentRange: response.header("content-range") }),
      ...(response.header("content-encoding") === undefined
        ? {}
        : { contentEncoding: response.header("content-encoding") }),
      ...(expected.body === undefined ? {} : { body: response.text }),
    };
    if (JSON.stringify(seen) !== JSON.stringify(expected)) {
      mismatches.push({ seed, request, headers, expected, seen });
    }
  }
  expect({
    seed: masterSeed,
    tagsDiffer: identity !== variant,
    mismatches: mismatches.slice(0, 3),
    count: mismatches.length,
    reached: [200, 206, 304, 412, 416].map((status) => statuses.has(status)),
  }).toEqual({
    seed: masterSeed,
    tagsDiffer: true,
    mismatches: [],
    count: 0,
    reached: [true, true, true, true, true],
  });
}, 60_000);
