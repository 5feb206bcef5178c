import { expect, mock, test } from "bun:test";
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StaticFilesOptions } from "corral";
import * as wholeFileRead from "../../src/static/whole-file-read.ts";
import {
  makeFixture,
  rawRequest,
  secretText,
  serveFiles,
  serveLogged,
} from "./support/static-fixture.ts";

/**
 * Serves a file of 8192 bytes and one of 8193 under `memoryCache`, and downloads each twice: what
 * `twoDownloads` says of each.
 */
async function atAndOver8192(memoryCache: StaticFilesOptions["memoryCache"]) {
  using fixture = makeFixture();
  writeFileSync(join(fixture.root, "at.bin"), new Uint8Array(8192).fill(1));
  writeFileSync(join(fixture.root, "over.bin"), new Uint8Array(8193).fill(2));
  await using server = serveFiles({ root: fixture.root, memoryCache });
  return {
    at: await twoDownloads(server, "/files/at.bin"),
    over: await twoDownloads(server, "/files/over.bin"),
  };
}

/** The 8192-byte file kept in memory (borrowed), the 8193-byte one read through staging. */
const keptAtStagedOver = {
  at: { lengths: [8192, 8192], borrowed: 16384, staged: 0 },
  over: { lengths: [8193, 8193], borrowed: 0, staged: 16386 },
};

/** Downloads `target` twice: the body lengths, and the bytes borrowed and staged for them. */
async function twoDownloads(server: ReturnType<typeof serveFiles>, target: string) {
  const before = server.app.stats();
  const first = await rawRequest(server.port, target);
  const second = await rawRequest(server.port, target);
  const after = server.app.stats();
  return {
    lengths: [first.body.length, second.body.length],
    borrowed: after.bytesBorrowed - before.bytesBorrowed,
    staged: after.bytesCopiedToStaging - before.bytesCopiedToStaging,
  };
}

test("a name verified and cached, then swapped for a symlink leading outside, is a 404 at once", async () => {
  using fixture = makeFixture();
  writeFileSync(join(fixture.root, "swap.txt"), "inside\n");
  await using server = serveFiles({ root: fixture.root });
  const before = await rawRequest(server.port, "/files/swap.txt");
  rmSync(join(fixture.root, "swap.txt"));
  symlinkSync("../secret.txt", join(fixture.root, "swap.txt"));
  const after = await rawRequest(server.port, "/files/swap.txt");
  rmSync(join(fixture.root, "sub"), { recursive: true });
  symlinkSync("..", join(fixture.root, "sub"));
  const folder = await rawRequest(server.port, "/files/sub/secret.txt");
  expect([
    before.status,
    before.text,
    after.status,
    after.text.includes(secretText),
    folder.status,
  ]).toEqual([200, "inside\n", 404, false, 404]);
});

test("memoryCache.maxFileBytes: a file of exactly that size is kept in memory, one byte more is read through staging", async () => {
  expect(await atAndOver8192({ maxFileBytes: 8192 })).toEqual(keptAtStagedOver);
});

test("memoryCache.maxFileBytes over maxBytes is a TypeError naming both; by default it is at most maxBytes", async () => {
  expect(() =>
    serveFiles({ root: ".", memoryCache: { maxBytes: 8192, maxFileBytes: 8193 } }),
  ).toThrow(
    new TypeError(
      "corral: memoryCache.maxFileBytes (8193) must be at most memoryCache.maxBytes (8192): a larger file would be read whole at every request and never kept",
    ),
  );
  // The default per-file bound (64 KiB) follows a smaller budget: a file over it goes through
  // staging, where it was read whole at every request and never kept.
  expect(await atAndOver8192({ maxBytes: 8192 })).toEqual(keptAtStagedOver);
});

test("memoryCache: false reads every file through staging; a bad limit is a TypeError", async () => {
  using fixture = makeFixture();
  await using server = serveFiles({ root: fixture.root, memoryCache: false });
  const response = await rawRequest(server.port, "/files/a.txt");
  const stats = server.app.stats();
  expect([response.text, stats.bytesCopiedToStaging >= 6]).toEqual(["hello\n", true]);
  expect(() => serveFiles({ root: fixture.root, memoryCache: { maxBytes: -1 } })).toThrow(
    "corral: memoryCache.maxBytes must be a whole number >= 0, got -1",
  );
});

test("a small file changed in place while it is read whole is a 503 with Retry-After: 1 (logged), then served changed", async () => {
  using fixture = makeFixture();
  const path = join(fixture.root, "changing.txt");
  writeFileSync(path, "old content\n");
  const { app, server, logged } = serveLogged(fixture.root);
  // The change must land between the descriptor's stat and the end of the read, a window of
  // microseconds: the read is replaced, once, by one that first rewrites the file in place.
  const original = { ...wholeFileRead };
  const restore = () => mock.module("../../src/static/whole-file-read.ts", () => original);
  mock.module("../../src/static/whole-file-read.ts", () => ({
    ...original,
    readWholeFile: (...args: Parameters<typeof original.readWholeFile>) => {
      restore();
      writeFileSync(path, "new, longer content\n");
      return original.readWholeFile(...args);
    },
  }));
  try {
    const changed = await rawRequest(server.port, "/files/changing.txt");
    restore();
    const after = await rawRequest(server.port, "/files/changing.txt");
    expect([
      [changed.status, changed.header("retry-after"), changed.header("etag")],
      [after.status, after.text],
      logged.map((line) => line.includes("FileChangedError: the file changed")),
    ]).toEqual([[503, "1", undefined], [200, "new, longer content\n"], [true]]);
  } finally {
    restore();
    await app.stop({ graceMs: 100 });
  }
});
