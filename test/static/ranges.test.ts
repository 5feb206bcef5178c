import { expect, test } from "bun:test";
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, rawRequest, serveFiles, serveFixture } from "./support/static-fixture.ts";

/** 1000 bytes whose every byte says where it is: byte i is "0123456789"[i % 10]. */
const thousand = Array.from({ length: 1000 }, (_, index) => String(index % 10)).join("");

function setup(
  prepare?: (root: string) => void,
  limits?: { maxRangeParts?: number; mergeGapBytes?: number },
) {
  return serveFixture({ "digits.txt": thousand }, { rangeLimits: limits }, (fixture) =>
    prepare?.(fixture.root),
  );
}

test("single ranges: first-last, suffix, open, and an end past the file clamped, each a 206 with Content-Range", async () => {
  await using server = setup();
  const answers: Array<[string, number, string | undefined, string | undefined, string]> = [];
  for (const range of [
    "bytes=0-9",
    "bytes=-5",
    "bytes=995-",
    "bytes=990-5000",
    "bytes=-5000",
    "BYTES = 3-3",
    "bytes=10-19, 12-15",
  ]) {
    const response = await rawRequest(server.port, "/files/digits.txt", { Range: range });
    answers.push([
      range,
      response.status,
      response.header("content-range"),
      response.header("content-length"),
      response.text,
    ]);
  }
  expect(answers).toEqual([
    ["bytes=0-9", 206, "bytes 0-9/1000", "10", "0123456789"],
    ["bytes=-5", 206, "bytes 995-999/1000", "5", "56789"],
    ["bytes=995-", 206, "bytes 995-999/1000", "5", "56789"],
    ["bytes=990-5000", 206, "bytes 990-999/1000", "10", "0123456789"],
    ["bytes=-5000", 206, "bytes 0-999/1000", "1000", thousand],
    ["BYTES = 3-3", 206, "bytes 3-3/1000", "1", "3"],
    ["bytes=10-19, 12-15", 206, "bytes 10-19/1000", "10", "0123456789"],
  ]);
});

test("unsatisfiable ranges are a 416 with bytes */length; malformed or other units are ignored (200)", async () => {
  await using server = setup();
  const answers: Array<[string, number, string | undefined, number]> = [];
  for (const range of [
    "bytes=1000-",
    "bytes=5000-6000",
    "bytes=-0",
    "bytes=1000-, -0",
    "bytes=5-1",
    "bytes=a-b",
    "items=0-1",
    "bytes=",
    "bytes=0-1;x",
  ]) {
    const response = await rawRequest(server.port, "/files/digits.txt", { Range: range });
    answers.push([range, response.status, response.header("content-range"), response.body.length]);
  }
  expect(answers).toEqual([
    ["bytes=1000-", 416, "bytes */1000", "Range Not Satisfiable\n".length],
    ["bytes=5000-6000", 416, "bytes */1000", "Range Not Satisfiable\n".length],
    ["bytes=-0", 416, "bytes */1000", "Range Not Satisfiable\n".length],
    ["bytes=1000-, -0", 416, "bytes */1000", "Range Not Satisfiable\n".length],
    ["bytes=5-1", 200, undefined, 1000],
    ["bytes=a-b", 200, undefined, 1000],
    ["items=0-1", 200, undefined, 1000],
    ["bytes=", 200, undefined, 1000],
    ["bytes=0-1;x", 200, undefined, 1000],
  ]);
});

test("several ranges are one multipart/byteranges, sorted and merged, with an exact Content-Length", async () => {
  await using server = setup(undefined, { mergeGapBytes: 0 });
  const response = await rawRequest(server.port, "/files/digits.txt", {
    Range: "bytes=500-502, 0-1, 1-3, 998-2000, 5000-6000",
  });
  const type = response.header("content-type")!;
  const boundary = type.slice("multipart/byteranges; boundary=".length);
  const parts = response.text
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [head, body] = part.replace(/^\r\n/, "").split("\r\n\r\n");
      return [head!.split("\r\n"), body!.replace(/\r\n$/, "")];
    });
  expect({
    status: response.status,
    boundary: /^[0-9a-f]{32}$/.test(boundary),
    length: Number(response.header("content-length")) === response.body.length,
    ending: response.text.endsWith(`\r\n--${boundary}--\r\n`),
    parts,
  }).toEqual({
    status: 206,
    boundary: true,
    length: true,
    ending: true,
    parts: [
      [["Content-Type: text/plain; charset=utf-8", "Content-Range: bytes 0-3/1000"], "0123"],
      [["Content-Type: text/plain; charset=utf-8", "Content-Range: bytes 500-502/1000"], "012"],
      [["Content-Type: text/plain; charset=utf-8", "Content-Range: bytes 998-999/1000"], "89"],
    ],
  });
});

test("ranges closer than the merge gap (80 bytes) become one part, exactly 80 apart stay two; more parts than the cap are a plain 200", async () => {
  await using merged = setup();
  await using capped = setup(undefined, { maxRangeParts: 2, mergeGapBytes: 0 });
  const near = await rawRequest(merged.port, "/files/digits.txt", { Range: "bytes=0-1, 50-51" });
  // 79 bytes between the two ranges are fewer than 80: one part; exactly 80 are not.
  const under = await rawRequest(merged.port, "/files/digits.txt", { Range: "bytes=0-1, 81-82" });
  const at = await rawRequest(merged.port, "/files/digits.txt", { Range: "bytes=0-1, 82-83" });
  const many = await rawRequest(capped.port, "/files/digits.txt", {
    Range: "bytes=0-1, 10-11, 20-21",
  });
  const two = await rawRequest(capped.port, "/files/digits.txt", { Range: "bytes=0-1, 10-11" });
  expect([
    [near.status, near.header("content-range"), near.text.length],
    [under.status, under.header("content-range"), under.text.length],
    [at.status, at.header("content-type")?.startsWith("multipart/byteranges; boundary=")],
    [many.status, many.body.length],
    [two.status, two.header("content-type")?.startsWith("multipart/byteranges; boundary=")],
  ]).toEqual([
    [206, "bytes 0-51/1000", 52],
    [206, "bytes 0-82/1000", 83],
    [206, true],
    [200, 1000],
    [206, true],
  ]);
});

test("If-Range: a matching strong ETag or the exact date allows the range; a weak, other or older one sends all", async () => {
  await using server = setup((root) => {
    const modified = new Date("2026-01-02T03:04:05Z");
    utimesSync(join(root, "digits.txt"), modified, modified);
  });
  const plain = await rawRequest(server.port, "/files/digits.txt");
  const etag = plain.header("etag")!;
  const answers: Array<[string, number]> = [];
  for (const [name, value] of [
    ["same tag", etag],
    ["weak tag", `W/${etag}`],
    ["other tag", '"other"'],
    ["same date", plain.header("last-modified")!],
    ["earlier date", "Thu, 01 Jan 2026 00:00:00 GMT"],
  ] as const) {
    const response = await rawRequest(server.port, "/files/digits.txt", {
      Range: "bytes=0-1",
      "If-Range": value,
    });
    answers.push([name, response.status]);
  }
  expect(answers).toEqual([
    ["same tag", 206],
    ["weak tag", 200],
    ["other tag", 200],
    ["same date", 206],
    ["earlier date", 200],
  ]);
});

test("If-Range with the date of a file modified in the current second sends all: that date is a weak validator (RFC 9110 §8.8.2.2)", async () => {
  let root = "";
  await using server = setup((fixtureRoot) => {
    root = fixtureRoot;
  });
  // The file is modified now, early in a second, and asked for within the same second.
  while (Date.now() % 1000 >= 500) await Bun.sleep(1);
  const now = new Date();
  utimesSync(join(root, "digits.txt"), now, now);
  const response = await rawRequest(server.port, "/files/digits.txt", {
    Range: "bytes=0-1",
    "If-Range": now.toUTCString(),
  });
  expect([
    response.status,
    response.header("last-modified"),
    response.header("content-range"),
    response.body.length,
  ]).toEqual([200, now.toUTCString(), undefined, 1000]);
});

test("a 10 MiB file: its SHA-256 whole and put together from ranges", async () => {
  using fixture = makeFixture();
  const size = 10 * 1024 * 1024;
  const content = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 65536) {
    crypto.getRandomValues(content.subarray(offset, Math.min(size, offset + 65536)));
  }
  writeFileSync(join(fixture.root, "large.bin"), content);
  const expected = new Bun.CryptoHasher("sha256").update(content).digest("hex");
  await using server = serveFiles({ root: fixture.root });
  // fetch here (the path is plain, and it reads 10 MiB bodies linearly); keep-alive is reused.
  const url = `http://127.0.0.1:${server.port}/files/large.bin`;
  const whole = await fetch(url);
  const wholeBytes = new Uint8Array(await whole.arrayBuffer());
  const cut = [0, 1, 65535, 65536, 3_000_001, size - 1, size];
  const statuses: number[] = [];
  const joined = new Bun.CryptoHasher("sha256");
  for (let index = 0; index + 1 < cut.length; index++) {
    const piece = await fetch(url, {
      headers: { Range: `bytes=${cut[index]}-${cut[index + 1]! - 1}` },
    });
    statuses.push(piece.status);
    joined.update(new Uint8Array(await piece.arrayBuffer()));
  }
  expect({
    whole: [
      whole.status,
      wholeBytes.length,
      new Bun.CryptoHasher("sha256").update(wholeBytes).digest("hex"),
    ],
    statuses,
    joined: joined.digest("hex"),
  }).toEqual({
    whole: [200, size, expected],
    statuses: Array(cut.length - 1).fill(206),
    joined: expected,
  });
});
