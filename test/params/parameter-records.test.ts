import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { firstQueryValue } from "../../engine/src/internal/query-value.ts";
import { formDecodeText } from "../../src/params/codecs.ts";
import { DecodeError } from "../../src/params/decode-error.ts";
import { countEntries, countEntryBytes, firstInRaw } from "../../src/params/entry-cursor.ts";
import { ParameterRecords } from "../../src/params/parameter-records.ts";
import { liveObjects } from "../support/live-objects.ts";

const pairs = (records: ParameterRecords) =>
  records.entries.map((entry) => [entry.nameRaw, entry.valueRaw]);

describe("ParameterRecords.parse", () => {
  test("splits raw text into ordered raw entries, duplicates kept in order", () => {
    const records = ParameterRecords.parse("a=1&b=2&a=3&files[]=x.txt&files[]=y.txt&a=");
    expect(pairs(records)).toEqual([
      ["a", "1"],
      ["b", "2"],
      ["a", "3"],
      ["files[]", "x.txt"],
      ["files[]", "y.txt"],
      ["a", ""],
    ]);
    expect(records.length).toBe(6);
  });

  test("every value stays text: leading zeros, false, numbers, escapes and + untouched", () => {
    const records = ParameterRecords.parse("id=007&on=false&n=1e3&q=caf%C3%A9+au+lait&e=%zz");
    expect(pairs(records)).toEqual([
      ["id", "007"],
      ["on", "false"],
      ["n", "1e3"],
      ["q", "caf%C3%A9+au+lait"],
      ["e", "%zz"],
    ]);
  });

  test("splits at the first =; an entry without = has an empty value; empty pieces are skipped", () => {
    const rows = [
      { raw: "", entries: [] },
      { raw: "&&&", entries: [] },
      { raw: "flag", entries: [["flag", ""]] },
      { raw: "a=b=c", entries: [["a", "b=c"]] },
      { raw: "=v", entries: [["", "v"]] },
      { raw: "=", entries: [["", ""]] },
      {
        raw: "&a=1&&b&",
        entries: [
          ["a", "1"],
          ["b", ""],
        ],
      },
      {
        raw: "x&y=1&z",
        entries: [
          ["x", ""],
          ["y", "1"],
          ["z", ""],
        ],
      },
      { raw: "a+b=c d", entries: [["a+b", "c d"]] },
    ];
    expect(rows.map(({ raw }) => ({ raw, entries: pairs(ParameterRecords.parse(raw)) }))).toEqual(
      rows,
    );
  });

  test("stays linear on many pieces without =", () => {
    const raw = "a&".repeat(200_000);
    const records = ParameterRecords.parse(raw);
    expect(records.length).toBe(200_000);
    expect(records.firstRaw("a")).toEqual({ nameRaw: "a", valueRaw: "" });
  });
});

describe("lookups", () => {
  const records = ParameterRecords.parse("tag=a&page=007&tag=b&a+b=1&a%20b=2&tag=c");

  test("firstRaw returns the first entry with that raw name, or undefined", () => {
    expect(records.firstRaw("tag")).toEqual({ nameRaw: "tag", valueRaw: "a" });
    expect(records.firstRaw("page")?.valueRaw).toBe("007");
    expect(records.firstRaw("missing")).toBeUndefined();
  });

  test("names are compared raw, never decoded", () => {
    expect(records.firstRaw("a b")).toBeUndefined();
    expect(records.firstRaw("a+b")?.valueRaw).toBe("1");
    expect(records.firstRaw("a%20b")?.valueRaw).toBe("2");
  });

  test("allRaw returns every entry with that name in order, or an empty array", () => {
    expect(records.allRaw("tag").map((entry) => entry.valueRaw)).toEqual(["a", "b", "c"]);
    expect(records.allRaw("missing")).toEqual([]);
  });

  test("iteration yields the entries in order", () => {
    expect(Array.from(records, (entry) => entry.nameRaw)).toEqual([
      "tag",
      "page",
      "tag",
      "a+b",
      "a%20b",
      "tag",
    ]);
  });
});

describe("liveness guard", () => {
  test("every member calls assertLive first", () => {
    let calls = 0;
    const records = ParameterRecords.parse("a=1&b=2", () => {
      calls++;
    });
    const members = [
      () => records.length,
      () => records.entries,
      () => records.firstRaw("a"),
      () => records.allRaw("a"),
      () => records[Symbol.iterator](),
    ];
    expect(
      members.map((member) => {
        const before = calls;
        member();
        return calls - before;
      }),
    ).toEqual([1, 1, 1, 1, 1]);
  });

  test("once the guard throws, every member and a running iteration throw", () => {
    let live = true;
    const stale = new Error("request view used after the handler returned");
    const records = ParameterRecords.parse("a=1&b=2", () => {
      if (!live) throw stale;
    });
    const iterator = records[Symbol.iterator]();
    expect(iterator.next().value).toEqual({ nameRaw: "a", valueRaw: "1" });
    live = false;
    expect(() => iterator.next()).toThrow(stale);
    expect(() => records.length).toThrow(stale);
    expect(() => records.entries).toThrow(stale);
    expect(() => records.firstRaw("a")).toThrow(stale);
    expect(() => records.allRaw("a")).toThrow(stale);
    expect(() => [...records]).toThrow(stale);
  });

  test("without a guard the records work as plain data", () => {
    const records = new ParameterRecords([{ nameRaw: "a", valueRaw: "1" }]);
    expect([...records]).toEqual([{ nameRaw: "a", valueRaw: "1" }]);
  });
});

test("firstRaw on unsplit text agrees with the split entries", () => {
  const raws = [
    "",
    "a=1&a=2",
    "ab=1&a=2",
    "=x&a",
    "a&a=1",
    "x=1&&a=3=4&b",
    "a=&a=1",
    "files[]=a&files[]=b",
  ];
  const names = ["a", "", "ab", "b", "x", "files[]", "a=3", "zzz"];
  for (const raw of raws) {
    const split = ParameterRecords.parse(raw).entries;
    for (const name of names) {
      const expected = split.find((entry) => entry.nameRaw === name);
      expect({ raw, name, entry: ParameterRecords.parse(raw).firstRaw(name) }).toEqual({
        raw,
        name,
        entry: expected,
      });
    }
  }
});

describe("entries are made only when asked for", () => {
  // Issue "No client can deny service to other clients", point 5: a view must not multiply the
  // body's size.

  test("length, firstRaw, allRaw and a partial iteration keep no entry objects", () => {
    const records = ParameterRecords.parse("a=1&".repeat(100_000));
    const before = liveObjects();
    let iterated = 0;
    for (const _entry of records) if (++iterated === 3) break;
    const read = [records.length, records.firstRaw("a"), records.allRaw("b"), iterated];
    const kept = liveObjects() - before;
    expect({ read, fewObjects: kept < 100 }).toEqual({
      read: [100_000, { nameRaw: "a", valueRaw: "1" }, [], 3],
      fewObjects: true,
    });
  });

  test("reading entries makes them all, once", () => {
    const records = ParameterRecords.parse("a=1&".repeat(100_000));
    const before = liveObjects();
    const first = records.entries;
    const kept = liveObjects() - before;
    expect({ length: first.length, same: records.entries === first, all: kept > 99_000 }).toEqual({
      length: 100_000,
      same: true,
      all: true,
    });
  });
});

test("counting on text and on bytes agrees with the entries, and stops past the limit", () => {
  const raws = ["", "&", "a", "a&", "&a", "a&&b", "=&=", "a=1&b=2&c", "&&&x&&&"];
  const counts = raws.map((raw) => [
    countEntries(raw, 100),
    countEntryBytes(Buffer.from(raw, "latin1"), 100),
  ]);
  expect(counts).toEqual(raws.map((raw) => Array(2).fill(ParameterRecords.parse(raw).length)));
  const long = "a&".repeat(1000);
  expect([countEntries(long, 3), countEntryBytes(Buffer.from(long), 3)]).toEqual([4, 4]);
});

test("entries and their count are those of a plain split, runs of empty pieces included", () => {
  fc.assert(
    fc.property(fc.stringMatching(/^[a=&]{0,16}$/), (raw) => {
      const pieces = raw.split("&").filter((piece) => piece.length > 0);
      const expected = pieces.map((piece) => {
        const equals = piece.indexOf("=");
        return equals < 0
          ? { nameRaw: piece, valueRaw: "" }
          : { nameRaw: piece.slice(0, equals), valueRaw: piece.slice(equals + 1) };
      });
      expect(ParameterRecords.parse(raw).entries).toEqual(expected);
      expect(countEntries(raw, 100)).toBe(pieces.length);
    }),
    { numRuns: 5000, seed: 28 },
  );
});

describe("firstRaw without splitting (firstInRaw)", () => {
  // Characters that make pieces, names and values: separators, a repeated letter, an escape.
  const piece = fc.stringMatching(/^[ab=&%]{0,12}$/);

  test("finds what a split of the whole text finds first, for any text and name", () => {
    fc.assert(
      fc.property(piece, fc.stringMatching(/^[ab=&]{0,3}$/), (raw, name) => {
        const split = ParameterRecords.parse(raw).entries.find((entry) => entry.nameRaw === name);
        expect(firstInRaw(raw, name)).toEqual(split);
      }),
      { numRuns: 5000, seed: 27 },
    );
  });

  test("names holding a separator never match, as entries split at them", () => {
    expect(firstInRaw("a&b=1", "a&b")).toBeUndefined();
    expect(firstInRaw("a=b=1", "a=b")).toBeUndefined();
    expect(firstInRaw("a=b", "a=b")).toBeUndefined();
    expect(firstInRaw("=x&a", "")).toEqual({ nameRaw: "", valueRaw: "x" });
    expect(firstInRaw("na&names=1&name=2", "name")).toEqual({ nameRaw: "name", valueRaw: "2" });
  });
});

describe("the first value of a name over a request's bytes (firstQueryValue)", () => {
  const latin1 = (text: string) => Uint8Array.from(text, (character) => character.charCodeAt(0));

  test("finds what a split of the whole text finds first, anywhere in the bytes", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[ab=&%\xe9]{0,12}$/),
        fc.stringMatching(/^[ab=&\xe9]{0,3}$/),
        fc.nat(3),
        (raw, name, margin) => {
          const split = ParameterRecords.parse(raw).entries.find((entry) => entry.nameRaw === name);
          // The query lies inside a larger buffer, as in a socket chunk: nothing around it counts.
          const bytes = latin1(`${"a=&".slice(0, margin)}${raw}${"&a=b".slice(0, margin)}`);
          const found = firstQueryValue(bytes, margin, margin + raw.length, name);
          expect(found).toBe(split?.valueRaw);
        },
      ),
      { numRuns: 5000, seed: 29 },
    );
  });

  test("names holding a separator or a character past Latin-1 never match", () => {
    const query = latin1("a&b=1&a=b=1&=x&\xe9=2");
    expect(firstQueryValue(query, 0, query.length, "a&b")).toBeUndefined();
    expect(firstQueryValue(query, 0, query.length, "a=b")).toBeUndefined();
    expect(firstQueryValue(query, 0, query.length, "")).toBe("x");
    expect(firstQueryValue(query, 0, query.length, "\u0100")).toBeUndefined();
    expect(firstQueryValue(query, 0, query.length, "\xe9")).toBe("2");
    expect(firstQueryValue(query, 0, query.length, "a")).toBe("");
    // The name checked last is remembered: another with a separator is still refused.
    expect(firstQueryValue(query, 0, query.length, "b")).toBe("1");
    expect(firstQueryValue(query, 0, query.length, "a=b")).toBeUndefined();
  });
});

describe("against WHATWG URLSearchParams (URL §5.1)", () => {
  // Pieces of a query as browsers and forms send them: separators, `+`, escapes (valid, of a
  // separator, of UTF-8, cut short, not hex), and bytes sent raw.
  const piece = fc.constantFrom(
    ...["a", "b", "=", "&", "&&", "+", "%20", "%2B", "%26", "%3D", "%C3%A9", "%61", "%00"],
    ...["%", "%2", "%zz", "%E2%82", "%FF", "~", ".", "!", "*", "(", ";", ",", "/", "?", ":", "@"],
  );
  const buffer = new Uint8Array(256);
  const decoded = (raw: string) => {
    try {
      return formDecodeText(raw, buffer);
    } catch (error) {
      if (error instanceof DecodeError) return null;
      throw error;
    }
  };

  test("the entries, form-decoded, are URLSearchParams' where every escape decodes", () => {
    let compared = 0;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const raw = pieces.join("");
        const entries = ParameterRecords.parse(raw).entries.map((entry) => [
          decoded(entry.nameRaw),
          decoded(entry.valueRaw),
        ]);
        // A malformed escape or invalid UTF-8 is a DecodeError here (a 400 where a handler
        // decodes it); URLSearchParams keeps the `%` or puts U+FFFD. "&" first: a leading "?"
        // of its argument would be dropped, as a URL's query delimiter.
        if (entries.flat().includes(null)) return;
        compared++;
        expect(entries).toEqual([...new URLSearchParams(`&${raw}`)]);
      }),
      { numRuns: 3000, seed: 30 },
    );
    expect(compared).toBeGreaterThan(1000);
  });
});
