import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  decodeText,
  formDecodeInto,
  formDecodeText,
  params,
  percentDecodeInto,
  percentDecodeText,
} from "../../src/params/codecs.ts";
import { DecodeError, type DecodeErrorReason } from "../../src/params/decode-error.ts";

const latin1 = (bytes: Uint8Array) =>
  Array.from(bytes, (byte) => String.fromCharCode(byte)).join("");
const codecs = { percentDecodeInto, formDecodeInto } as const;

function reasonOf(run: () => unknown): DecodeErrorReason | "no error" {
  try {
    run();
  } catch (error) {
    if (error instanceof DecodeError) return error.reason;
    throw error;
  }
  return "no error";
}

describe("percentDecodeInto and formDecodeInto", () => {
  test("decode the same table of raw text, differing only on a plain +", () => {
    const rows = [
      { raw: "", percent: "", form: "" },
      { raw: "plain", percent: "plain", form: "plain" },
      { raw: "a%20b", percent: "a b", form: "a b" },
      { raw: "a+b", percent: "a+b", form: "a b" },
      { raw: "%2B", percent: "+", form: "+" },
      { raw: "%2b", percent: "+", form: "+" },
      { raw: "a+%2B+b", percent: "a+++b", form: "a + b" },
      { raw: "%41%4a%4A%6f", percent: "AJJo", form: "AJJo" },
      { raw: "%25", percent: "%", form: "%" },
      { raw: "%2525", percent: "%25", form: "%25" },
      { raw: "%00", percent: "\u0000", form: "\u0000" },
      { raw: "%FF%ff", percent: "\u00ff\u00ff", form: "\u00ff\u00ff" },
      { raw: "x=y&z", percent: "x=y&z", form: "x=y&z" },
    ];
    const results = rows.map(({ raw }) => ({
      raw,
      percent: latin1(percentDecodeInto(raw, new Uint8Array(16))),
      form: latin1(formDecodeInto(raw, new Uint8Array(16))),
    }));
    expect(results).toEqual(rows);
  });

  test("a Uint8Array and a string of the same raw text decode alike", () => {
    const raw = "caf%C3%A9+%2B";
    const bytes = new TextEncoder().encode(raw);
    for (const decode of Object.values(codecs)) {
      expect(decode(bytes, new Uint8Array(16))).toEqual(decode(raw, new Uint8Array(16)));
    }
  });

  test("the result is a view at the start of the caller's buffer, not a copy", () => {
    const buffer = new Uint8Array(32);
    for (const decode of Object.values(codecs)) {
      const result = decode("abc%21", buffer);
      expect({ same: result.buffer === buffer.buffer, offset: result.byteOffset }).toEqual({
        same: true,
        offset: 0,
      });
      expect(result.length).toBe(4);
    }
  });

  test("a Latin-1 character of a string is its byte; above U+00FF is an error", () => {
    expect(Array.from(percentDecodeInto("\u00e9", new Uint8Array(1)))).toEqual([0xe9]);
    expect(reasonOf(() => percentDecodeInto("\u0100", new Uint8Array(8)))).toBe(
      "characterOutOfRange",
    );
    expect(reasonOf(() => formDecodeInto("a€", new Uint8Array(8)))).toBe("characterOutOfRange");
  });

  test("a % without two hex digits is malformedEscape in both", () => {
    const malformed = ["%", "%4", "%zz", "%4g", "%g4", "abc%", "ab%2", "%%41", "% 41", "%+1"];
    for (const decode of Object.values(codecs)) {
      expect(malformed.map((raw) => reasonOf(() => decode(raw, new Uint8Array(16))))).toEqual(
        malformed.map(() => "malformedEscape"),
      );
    }
  });

  test("an exactly fitting buffer passes; one byte smaller throws, never truncates", () => {
    for (const decode of Object.values(codecs)) {
      // "%C3%A9x+" decodes to 4 bytes.
      expect(decode("%C3%A9x+", new Uint8Array(4)).length).toBe(4);
      expect(reasonOf(() => decode("%C3%A9x+", new Uint8Array(3)))).toBe("bufferTooSmall");
      expect(decode("", new Uint8Array(0)).length).toBe(0);
      expect(reasonOf(() => decode("a", new Uint8Array(0)))).toBe("bufferTooSmall");
    }
  });

  test("the fit is judged on decoded bytes, not on raw length", () => {
    for (const decode of Object.values(codecs)) {
      expect(latin1(decode("%41%42%43", new Uint8Array(3)))).toBe("ABC");
    }
  });

  test("seeded random bytes survive percent-encoding and both decoders", () => {
    let seed = 0x2f6b1d3;
    const random = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 8;
    };
    const buffer = new Uint8Array(64);
    for (let round = 0; round < 2000; round++) {
      const bytes = Uint8Array.from({ length: random() % 48 }, () => random() % 256);
      // Escape every byte that is not unreserved (RFC 3986 §2.3), and some that are.
      const raw = Array.from(bytes, (byte) => {
        const character = String.fromCharCode(byte);
        return /[A-Za-z0-9._~-]/.test(character) && random() % 2 === 0
          ? character
          : `%${byte.toString(16).padStart(2, "0")}`;
      }).join("");
      expect(percentDecodeInto(raw, buffer)).toEqual(bytes);
      expect(formDecodeInto(raw, buffer)).toEqual(bytes);
    }
  });
});

describe("decodeText", () => {
  test("decodes UTF-8 and keeps a leading byte order mark as data", () => {
    const buffer = new Uint8Array(32);
    expect(decodeText(percentDecodeInto("caf%C3%A9%20%E2%82%AC", buffer))).toBe("café €");
    expect(decodeText(percentDecodeInto("%EF%BB%BFx", buffer))).toBe("\ufeffx");
    expect(decodeText(new Uint8Array(0))).toBe("");
  });

  test("invalid UTF-8 is invalidUtf8, never U+FFFD", () => {
    const invalid = ["%FF", "%C3", "%C3%28", "%ED%A0%80", "%C0%AF"];
    expect(
      invalid.map((raw) => reasonOf(() => decodeText(percentDecodeInto(raw, new Uint8Array(8))))),
    ).toEqual(invalid.map(() => "invalidUtf8"));
  });
});

/** What a decode gives: its text, or the reason of its DecodeError. */
function outcomeOf(run: () => string): string {
  try {
    return `text:${run()}`;
  } catch (error) {
    if (error instanceof DecodeError) return `error:${error.reason}`;
    throw error;
  }
}

describe("percentDecodeText and formDecodeText", () => {
  const textCodecs = [
    { name: "percent", text: percentDecodeText, into: percentDecodeInto },
    { name: "form", text: formDecodeText, into: formDecodeInto },
  ] as const;

  test("give what decodeText of the Into decoder gives, text or error, for any raw text", () => {
    // Characters a raw value can hold, weighted toward the ones that change the decoding.
    const character = fc.oneof(
      fc.constantFrom("%", "+", "2", "B", "C3", "A9", "F", "z", "a", " ", "\u0000"),
      fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
      fc.integer({ min: 0x80, max: 0x100 }).map((code) => String.fromCharCode(code)),
    );
    const raw = fc.array(character, { maxLength: 24 }).map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(raw, fc.integer({ min: 0, max: 32 }), (text, size) => {
        for (const codec of textCodecs) {
          const expected = outcomeOf(() => decodeText(codec.into(text, new Uint8Array(size))));
          const actual = outcomeOf(() => codec.text(text, new Uint8Array(size)));
          if (actual !== expected)
            throw new Error(`${codec.name} ${JSON.stringify(text)}: ${actual}`);
        }
      }),
      { numRuns: 3000 },
    );
  });

  test("a plain ASCII value comes back as it is; escapes, + and UTF-8 are decoded", () => {
    const buffer = new Uint8Array(32);
    expect([
      percentDecodeText("world", buffer),
      percentDecodeText("a+b", buffer),
      formDecodeText("a+b", buffer),
      percentDecodeText("caf%C3%A9", buffer),
      formDecodeText("caf%C3%A9+au+lait", buffer),
      percentDecodeText("", buffer),
    ]).toEqual(["world", "a+b", "a b", "café", "café au lait", ""]);
  });

  test("the buffer is the limit: a value of exactly its size passes, one byte more fails", () => {
    for (const codec of textCodecs) {
      expect(codec.text("abcd", new Uint8Array(4))).toBe("abcd");
      expect(reasonOf(() => codec.text("abcde", new Uint8Array(4)))).toBe("bufferTooSmall");
      // Judged on decoded bytes, as the Into decoders judge it: 6 raw characters, 4 bytes.
      expect(codec.text("ab%41%42", new Uint8Array(4))).toBe("abAB");
      expect(reasonOf(() => codec.text("ab%41%42c", new Uint8Array(4)))).toBe("bufferTooSmall");
    }
  });

  test("errors are the Into decoders' and decodeText's", () => {
    for (const codec of textCodecs) {
      expect(reasonOf(() => codec.text("%zz", new Uint8Array(8)))).toBe("malformedEscape");
      expect(reasonOf(() => codec.text("%C3", new Uint8Array(8)))).toBe("invalidUtf8");
      expect(reasonOf(() => codec.text("\u00e9", new Uint8Array(8)))).toBe("invalidUtf8");
      expect(reasonOf(() => codec.text("\u0100", new Uint8Array(8)))).toBe("characterOutOfRange");
    }
  });

  test("raw bytes decode as the same raw text does", () => {
    const encoder = new TextEncoder();
    for (const codec of textCodecs) {
      expect(codec.text(encoder.encode("a+caf%C3%A9"), new Uint8Array(16))).toBe(
        codec.text("a+caf%C3%A9", new Uint8Array(16)),
      );
    }
  });
});

describe("params namespace and DecodeError", () => {
  test("params groups both decoders and cannot be changed", () => {
    expect(params.percentDecodeInto).toBe(percentDecodeInto);
    expect(params.formDecodeInto).toBe(formDecodeInto);
    expect(params.percentDecodeText).toBe(percentDecodeText);
    expect(params.formDecodeText).toBe(formDecodeText);
    expect(Object.isFrozen(params)).toBe(true);
    expect(latin1(params.formDecodeInto("a+b", new Uint8Array(3)))).toBe("a b");
  });

  test("DecodeError is an Error with a name, a reason and a message", () => {
    let caught: unknown;
    try {
      params.percentDecodeInto("%zz", new Uint8Array(8));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    expect(caught).toBeInstanceOf(DecodeError);
    const error = caught as DecodeError;
    expect({ name: error.name, reason: error.reason }).toEqual({
      name: "DecodeError",
      reason: "malformedEscape",
    });
    expect(error.message).toContain("offset 0");
  });
});
