import { expect, test } from "bun:test";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, rawRequest, serveFiles, serveFixture } from "./support/static-fixture.ts";

const script = "console.log('hello');\n".repeat(100);

function setup(precompressed?: Array<"br" | "zstd" | "gzip">) {
  const files = {
    "app.js": script,
    "app.js.br": "BROTLI-BYTES",
    "app.js.gz": "GZIP-BYTES",
    "app.js.zst": "ZSTD-BYTES",
    "only-gzip.css": "body{}",
    "only-gzip.css.gz": "GZIP-CSS",
    "linked.css": "linked{}",
    "photo.png": "PNG",
    "photo.png.gz": "NOT-LOOKED-FOR",
  };
  return serveFixture(files, { precompressed }, (fixture) => {
    // A variant that leads outside the folder is as absent as a missing one.
    writeFileSync(join(fixture.base, "outside.gz"), "OUTSIDE");
    symlinkSync("../outside.gz", join(fixture.root, "linked.css.gz"));
  });
}

test("a precompressed variant is served when the client accepts it, by q-value, with Content-Encoding, Vary and its own ETag", async () => {
  await using server = setup();
  const answers: Array<[string, string | undefined, string, string | undefined]> = [];
  const etags = new Set<string>();
  for (const accept of [
    undefined,
    "gzip, deflate, br, zstd",
    "gzip;q=1, br;q=0.5",
    "zstd",
    "br;q=0, gzip;q=0, zstd;q=0",
    "identity",
    "*",
    "deflate",
  ]) {
    const response = await rawRequest(
      server.port,
      "/files/app.js",
      accept === undefined ? {} : { "Accept-Encoding": accept },
    );
    answers.push([
      accept ?? "(none)",
      response.header("content-encoding"),
      response.text.slice(0, 14),
      response.header("vary"),
    ]);
    etags.add(response.header("etag")!);
  }
  expect({ answers, distinctEtags: etags.size }).toEqual({
    answers: [
      ["(none)", undefined, "console.log('h", "Accept-Encoding"],
      ["gzip, deflate, br, zstd", "br", "BROTLI-BYTES", "Accept-Encoding"],
      ["gzip;q=1, br;q=0.5", "gzip", "GZIP-BYTES", "Accept-Encoding"],
      ["zstd", "zstd", "ZSTD-BYTES", "Accept-Encoding"],
      ["br;q=0, gzip;q=0, zstd;q=0", undefined, "console.log('h", "Accept-Encoding"],
      ["identity", undefined, "console.log('h", "Accept-Encoding"],
      ["*", "br", "BROTLI-BYTES", "Accept-Encoding"],
      ["deflate", undefined, "console.log('h", "Accept-Encoding"],
    ],
    distinctEtags: 4,
  });
});

test("a missing variant falls back to the next accepted one; a variant leading outside is never served; images are not looked at", async () => {
  await using server = setup();
  const css = await rawRequest(server.port, "/files/only-gzip.css", {
    "Accept-Encoding": "br, gzip",
  });
  const linked = await rawRequest(server.port, "/files/linked.css", { "Accept-Encoding": "gzip" });
  const photo = await rawRequest(server.port, "/files/photo.png", { "Accept-Encoding": "gzip" });
  expect([
    [css.header("content-encoding"), css.text],
    [linked.header("content-encoding"), linked.text],
    [photo.header("content-encoding"), photo.header("vary"), photo.text],
  ]).toEqual([
    ["gzip", "GZIP-CSS"],
    [undefined, "linked{}"],
    [undefined, undefined, "PNG"],
  ]);
});

test("a variant's ETag answers its own If-None-Match with a 304; a Range is served from the identity file, and ignored by HEAD", async () => {
  await using server = setup();
  const br = await rawRequest(server.port, "/files/app.js", { "Accept-Encoding": "br" });
  const again = await rawRequest(server.port, "/files/app.js", {
    "Accept-Encoding": "br",
    "If-None-Match": br.header("etag")!,
  });
  const identity = await rawRequest(server.port, "/files/app.js", {
    "If-None-Match": br.header("etag")!,
  });
  const range = await rawRequest(server.port, "/files/app.js", {
    "Accept-Encoding": "br",
    Range: "bytes=0-6",
  });
  // A HEAD ignores the Range (RFC 9110 §14.2), so it is the head of the GET without it.
  const head = await rawRequest(
    server.port,
    "/files/app.js",
    { "Accept-Encoding": "br", Range: "bytes=0-6" },
    "HEAD",
  );
  expect([
    [again.status, again.header("etag"), again.header("vary")],
    [identity.status],
    [range.status, range.header("content-encoding"), range.header("vary"), range.text],
    [
      head.status,
      head.header("content-encoding"),
      head.header("etag"),
      head.header("content-length"),
    ],
  ]).toEqual([
    [304, br.header("etag"), "Accept-Encoding"],
    [200],
    [206, undefined, "Accept-Encoding", "console"],
    [200, "br", br.header("etag"), "12"],
  ]);
});

test("precompressed: [] looks for no variant and sends no Vary", async () => {
  await using server = setup([]);
  const response = await rawRequest(server.port, "/files/app.js", { "Accept-Encoding": "br" });
  expect([
    response.header("content-encoding"),
    response.header("vary"),
    response.text.length,
  ]).toEqual([undefined, undefined, script.length]);
});

test("each representation keeps its own ETag whatever was asked for first: the file, its br variant, and the .br file itself", async () => {
  using fixture = makeFixture();
  writeFileSync(join(fixture.root, "app.js"), script);
  writeFileSync(join(fixture.root, "app.js.br"), "BROTLI-BYTES");
  const asks = {
    identity: ["/files/app.js", {}],
    variant: ["/files/app.js", { "Accept-Encoding": "br" }],
    itself: ["/files/app.js.br", {}],
  } as const;
  // Each order on a fresh server over the same files: its memory starts empty.
  const tagsIn = async (order: ReadonlyArray<keyof typeof asks>) => {
    await using server = serveFiles({ root: fixture.root });
    const tags: Record<string, [string | undefined, string | undefined]> = {};
    for (const name of order) {
      const [target, headers] = asks[name];
      const response = await rawRequest(server.port, target, headers);
      tags[name] = [response.header("etag"), response.header("content-encoding")];
    }
    return tags;
  };
  const itselfFirst = await tagsIn(["itself", "variant", "identity"]);
  const variantFirst = await tagsIn(["variant", "identity", "itself"]);
  const tags = Object.values(variantFirst).map(([etag]) => etag);
  expect({ itselfFirst, distinct: new Set(tags).size }).toEqual({
    itselfFirst: variantFirst,
    distinct: 3,
  });
  expect(variantFirst.variant).toEqual([expect.stringMatching(/^"c-[0-9a-f]+-br"$/), "br"]);
});
