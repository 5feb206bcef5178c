import { expect, test } from "bun:test";
import { type ContentCoding, chooseContentCoding } from "../../src/http/content-coding.ts";

const available: readonly ContentCoding[] = ["br", "zstd", "gzip"];

test("chooses by q-value, ties to the order of available, identity (weighed when named or through *) or nothing otherwise", () => {
  const rows: Array<[string | undefined, string | undefined]> = [
    [undefined, "identity"],
    ["", "identity"],
    ["gzip", "gzip"],
    ["gzip, deflate, br", "br"],
    ["gzip;q=1.0, br;q=0.5", "gzip"],
    ["GZIP;Q=0.5, zstd;q=0.5", "zstd"],
    ["*", "br"],
    ["*;q=0.5, br;q=0", "zstd"],
    ["br;q=0, zstd;q=0, gzip;q=0", "identity"],
    ["deflate, compress", "identity"],
    ["identity;q=0", undefined],
    ["*;q=0", undefined],
    ["*;q=0, identity", "identity"],
    ["gzip;q=0.4, identity;q=0.5", "identity"],
    ["gzip;q=0.5, identity;q=0.5", "gzip"],
    ["gzip;q=2", "identity"],
    ["gzip;q=0.5 junk, br;q=0.1", "br"],
    ["gzip;level=9;q=0.3, br;q=0.2", "gzip"],
    [", ,gzip,,", "gzip"],
    ["gzip;q=", "identity"],
    ["gzip, gzip;q=0", "gzip"],
    ["gzip;q=0.5", "gzip"],
    ["br;q=0.1, zstd;q=0.1, gzip;q=0.1, *", "identity"],
    ["br;q=0.1, zstd;q=0.1, gzip;q=0.1, *;q=0.1", "br"],
    ["br;q=0.1, zstd;q=0.1, gzip;q=0.2, *;q=0.15", "gzip"],
  ];
  expect(rows.map(([header]) => [header, chooseContentCoding(header, available)])).toEqual(rows);
  expect(chooseContentCoding("br, gzip", ["gzip"])).toBe("gzip");
  expect(chooseContentCoding("br", [])).toBe("identity");
  // `*` weighs identity too (RFC 9110 §12.5.3): a coding the client barely accepts loses to it.
  expect(chooseContentCoding("gzip;q=0.001, *", ["gzip"])).toBe("identity");
  expect(chooseContentCoding("gzip;q=0.001, *;q=0", ["gzip"])).toBe("gzip");
});

test("a long hostile header is read in one pass", () => {
  const hostile = `${"gzip;q=0.5;".repeat(20_000)}, ${",".repeat(100_000)}br`;
  expect(chooseContentCoding(hostile, available)).toBe("br");
});

test("a value asked again is answered as the first time, also when the codings differ or change", () => {
  const codings: ContentCoding[] = ["br", "gzip"];
  const answers = [
    chooseContentCoding("gzip, br", codings),
    chooseContentCoding("gzip, br", codings),
    chooseContentCoding("gzip, br", codings.reverse()), // the same array, now gzip first
    chooseContentCoding("gzip, br", ["zstd"]),
    chooseContentCoding("gzip, br", ["br", "gzip"]),
    chooseContentCoding("br;q=0, gzip", ["br", "gzip"]),
    chooseContentCoding("gzip, br", ["br", "gzip"]),
  ];
  expect(answers).toEqual(["br", "br", "gzip", "identity", "br", "gzip", "br"]);
});
