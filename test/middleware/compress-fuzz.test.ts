// Seeded random answers through `etag()` and `compress()`, checked against the guide's rules:
// random bodies (type, size around the threshold, the handler's own strong or weak tag or none,
// `no-transform`), random `Accept-Encoding` values (q-values, `*`, `identity`, case, empty), GET
// and HEAD, and then the conditional requests a cache would send with the tag it got. The coding
// must be the one RFC 9110 §12.5.3 picks, the bytes must decode to the identity body, the tag
// must follow its coding, a HEAD must carry its GET's fields, and the preconditions must answer
// as §13.2.2 says for that tag.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { test } from "bun:test";
import { App } from "corral";
import { compress, etag } from "corral/middleware";
import type { WireResponse } from "../../engine/test/support/raw-client.ts";
import {
  caseSeed,
  expectNoMismatches,
  masterSeed,
  SeededRandom,
} from "../../engine/test/support/seeded-random.ts";
import { rawRequest } from "../static/support/static-fixture.ts";
import { decodeCoding } from "../support/decode-coding.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const cases = 150;
const threshold = 1024;
const types = { html: "text/html; charset=utf-8", json: "application/json", png: "image/png" };
type Kind = keyof typeof types;
const codings = ["zstd", "br", "gzip"] as const;

function bodyOf(kind: Kind, size: number): string {
  const unit = kind === "json" ? '{"n":1},' : "<p>corral</p>";
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

function fuzzApp() {
  const app = new App({ shared: {} }).use(etag()).use(compress({ thresholdBytes: threshold }));
  app.get("/r/:kind/:size/:tag/:transform", (ctx) => {
    const { kind, size, tag, transform } = ctx.params;
    if (tag === "strong") ctx.response.header("ETag", '"v1"');
    if (tag === "weak") ctx.response.header("ETag", 'W/"v1"');
    if (transform === "no") ctx.response.header("Cache-Control", "no-transform");
    const body = new TextEncoder().encode(bodyOf(kind as Kind, Number(size)));
    ctx.response.bytes(200, types[kind as Kind], body);
  });
  return app;
}

/**
 * The weight `accept` gives `coding` (RFC 9110 §12.5.3), or undefined when it names neither it
 * nor `*`.
 */
function weightOf(accept: string, coding: string): number | undefined {
  let star: number | undefined;
  for (const element of accept.split(",")) {
    const [name = "", ...parameters] = element.split(";").map((part) => part.trim());
    if (name === "") continue;
    const q = parameters.find((parameter) => parameter.toLowerCase().startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (name.toLowerCase() === coding) return weight;
    if (name === "*") star = weight;
  }
  return star;
}

/** The coding the model sends for `accept` (undefined: the identity body). */
function modelCoding(accept: string | undefined): string | undefined {
  if (accept === undefined) return undefined;
  let best: string | undefined;
  let bestWeight = 0;
  for (const coding of codings) {
    const weight = weightOf(accept, coding) ?? 0;
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  // A client that weighs identity (by name or by `*`) higher than every coding gets it; one that
  // names a coding without weighing identity takes that coding, however low its weight.
  const identity = weightOf(accept, "identity") ?? 0;
  return best !== undefined && identity <= bestWeight ? best : undefined;
}

const accepts = [
  undefined,
  "",
  "gzip",
  "br",
  "zstd",
  "GZIP",
  "gzip, deflate, br, zstd",
  "br;q=0, gzip",
  "gzip;q=0.5, br;q=0.9",
  "gzip;q=0.5, identity",
  "gzip, identity;q=0",
  "*",
  "*;q=0",
  "*;q=0.3, identity;q=0.5",
  "identity",
  "x-unknown",
  "zstd;q=0.001",
  "br;q=1.0, zstd;q=1, gzip;q=1",
];

interface Case {
  readonly path: string;
  readonly kind: Kind;
  readonly size: number;
  readonly tag: "strong" | "weak" | "none";
  readonly noTransform: boolean;
  readonly accept: string | undefined;
}

function plan(random: SeededRandom): Case {
  const kind = random.pick(["html", "json", "png"] as const);
  const size = random.pick([0, 10, threshold - 1, threshold, threshold + 1, 5000, 40_000]);
  const tag = random.pick(["strong", "weak", "none"] as const);
  const noTransform = random.oneIn(6);
  const path = `/r/${kind}/${size}/${tag}/${noTransform ? "no" : "yes"}`;
  return { path, kind, size, tag, noTransform, accept: random.pick(accepts) };
}

/** The fields a HEAD must share with its GET, and those a 304 keeps of them. */
const fieldsOf = (response: WireResponse, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, response.header(name)]));
const representationFields = ["content-type", "content-encoding", "content-length", "etag", "vary"];

test(`${cases} random answers through etag() and compress(): coding, bytes, tags, HEAD and preconditions follow the rules (seed ${masterSeed})`, async () => {
  const app = fuzzApp();
  const server = listenQuietly(app);
  const mismatches: unknown[] = [];
  try {
    const exchange = (method: string, path: string, accept: string | undefined, extra = {}) =>
      rawRequest(
        server.port,
        path,
        { ...(accept === undefined ? {} : { "Accept-Encoding": accept }), ...extra },
        method,
      );
    for (let index = 0; index < cases; index++) {
      const seed = caseSeed("compress-etag", index);
      const planned = plan(new SeededRandom(seed));
      const fail = (problem: string, detail?: unknown) =>
        mismatches.push({ seed, planned, problem, detail });
      const get = await exchange("GET", planned.path, planned.accept);
      const body = bodyOf(planned.kind, planned.size);
      const compressible = planned.kind !== "png";
      const coding =
        compressible && planned.size >= threshold && !planned.noTransform
          ? modelCoding(planned.accept)
          : undefined;
      const sentCoding = get.header("content-encoding");
      if (get.status !== 200) fail(`status ${get.status}`);
      if (sentCoding !== coding) fail(`coding ${sentCoding}, want ${coding}`);
      if (decodeCoding(sentCoding, get.body) !== body) fail("the bytes do not decode to the body");
      if (Number(get.header("content-length")) !== get.body.length) fail("Content-Length");
      const vary = get.header("vary");
      if (compressible !== (vary?.toLowerCase().includes("accept-encoding") ?? false)) {
        fail(`Vary ${vary}`);
      }
      const tag = get.header("etag");
      const handlerTag = { strong: '"v1"', weak: 'W/"v1"', none: undefined }[planned.tag];
      if (handlerTag !== undefined) {
        const want = coding === undefined ? handlerTag : `${handlerTag.slice(0, -1)}-${coding}"`;
        if (tag !== want) fail(`ETag ${tag}, want ${want}`);
      } else if (tag === undefined || tag.startsWith("W/")) fail(`ETag ${tag}, want a strong one`);
      const headAnswer = await exchange("HEAD", planned.path, planned.accept);
      const getFields = fieldsOf(get, representationFields);
      const headFields = fieldsOf(headAnswer, representationFields);
      if (!Bun.deepEquals(headFields, getFields)) fail("HEAD fields", { getFields, headFields });
      if (tag === undefined) continue;
      // What a cache holding this answer sends next.
      const opaque = tag.startsWith("W/") ? tag.slice(2) : tag;
      const notModified = await exchange("GET", planned.path, planned.accept, {
        "If-None-Match": `"other", W/${opaque}`,
      });
      const kept = fieldsOf(notModified, ["etag", "vary", "content-type", "content-encoding"]);
      const wantKept = {
        etag: tag,
        vary,
        "content-type": undefined,
        "content-encoding": undefined,
      };
      if (notModified.status !== 304 || notModified.body.length !== 0) {
        fail(`If-None-Match got ${notModified.status}`);
      } else if (!Bun.deepEquals(kept, wantKept)) fail("304 fields", { kept, wantKept });
      const changed = await exchange("GET", planned.path, planned.accept, {
        "If-None-Match": '"other"',
      });
      if (
        changed.status !== 200 ||
        decodeCoding(changed.header("content-encoding"), changed.body) !== body
      ) {
        fail(`If-None-Match of another tag got ${changed.status}`);
      }
      // If-Match compares strongly: a weak tag never matches (RFC 9110 §13.1.1).
      const matched = await exchange("GET", planned.path, planned.accept, { "If-Match": tag });
      const wantMatch = tag.startsWith("W/") ? 412 : 200;
      if (matched.status !== wantMatch) fail(`If-Match got ${matched.status}, want ${wantMatch}`);
      const other = await exchange("GET", planned.path, planned.accept, { "If-Match": '"other"' });
      if (other.status !== 412) fail(`If-Match of another tag got ${other.status}`);
    }
  } finally {
    await app.stop();
  }
  expectNoMismatches(mismatches);
});
