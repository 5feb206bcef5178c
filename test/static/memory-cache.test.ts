import { expect, test } from "bun:test";
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, rawRequest, secretText, serveFiles } from "./support/static-fixture.ts";

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
  using fixture = makeFixture();
  writeFileSync(join(fixture.root, "at.bin"), new Uint8Array(8192).fill(1));
  writeFileSync(join(fixture.root, "over.bin"), new Uint8Array(8193).fill(2));
  await using server = serveFiles({ root: fixture.root, memoryCache: { maxFileBytes: 8192 } });
  const counters = async (target: string) => {
    const before = server.app.stats();
    const first = await rawRequest(server.port, target);
    const second = await rawRequest(server.port, target);
    const after = server.app.stats();
    return {
      lengths: [first.body.length, second.body.length],
      borrowed: after.bytesBorrowed - before.bytesBorrowed,
      staged: after.bytesCopiedToStaging - before.bytesCopiedToStaging,
    };
  };
  expect({ at: await counters("/files/at.bin"), over: await counters("/files/over.bin") }).toEqual({
    at: { lengths: [8192, 8192], borrowed: 16384, staged: 0 },
    over: { lengths: [8193, 8193], borrowed: 0, staged: 16386 },
  });
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
