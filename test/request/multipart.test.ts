import { describe, expect, test } from "bun:test";
import {
  MultipartError,
  type MultipartErrorReason,
  type MultipartPart,
  parseMultipart,
} from "../../src/request/multipart.ts";

const limits = { maxParts: 100, maxPartHeaderBytes: 1024 };
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const typeFor = (boundary: string) => `multipart/form-data; boundary=${boundary}`;

/** Joins lines with CRLF, as a client writes a multipart body. */
const lines = (...parts: string[]) => encoder.encode(parts.join("\r\n"));

/** A readable summary of parts: text bytes decoded as UTF-8. */
const summary = (parts: MultipartPart[]) =>
  parts.map(({ name, filename, contentType, bytes }) => ({
    name,
    filename,
    contentType,
    text: decoder.decode(bytes),
  }));

function parse(body: Uint8Array, contentType = typeFor("xyz"), partLimits = limits) {
  return summary(parseMultipart(body, contentType, partLimits));
}

function reasonOf(
  body: Uint8Array,
  contentType = typeFor("xyz"),
  partLimits = limits,
): MultipartErrorReason | "no error" {
  try {
    parseMultipart(body, contentType, partLimits);
  } catch (error) {
    if (error instanceof MultipartError) return error.reason;
    throw error;
  }
  return "no error";
}

describe("valid bodies", () => {
  test("fields and files share one flat list, in order", () => {
    const body = lines(
      "--xyz",
      'Content-Disposition: form-data; name="title"',
      "",
      "Hello",
      "--xyz",
      'Content-Disposition: form-data; name="files[]"; filename="a.txt"',
      "Content-Type: text/plain",
      "",
      "first file",
      "--xyz",
      'Content-Disposition: form-data; name="files[]"; filename="b.bin"',
      "Content-Type: application/octet-stream",
      "",
      "second file",
      "--xyz--",
      "",
    );
    expect(parse(body)).toEqual([
      { name: "title", filename: undefined, contentType: undefined, text: "Hello" },
      { name: "files[]", filename: "a.txt", contentType: "text/plain", text: "first file" },
      {
        name: "files[]",
        filename: "b.bin",
        contentType: "application/octet-stream",
        text: "second file",
      },
    ]);
  });

  test("part bytes are views of the body, not copies", () => {
    const body = lines("--xyz", 'Content-Disposition: form-data; name="a"', "", "value", "--xyz--");
    const [part] = parseMultipart(body, typeFor("xyz"), limits);
    expect({ same: part?.bytes.buffer === body.buffer, offset: part?.bytes.byteOffset }).toEqual({
      same: true,
      offset: body.indexOf(0x76), // "v"
    });
  });

  test("a body inside a larger buffer is parsed in place", () => {
    const inner = lines("--xyz", 'Content-Disposition: form-data; name="a"', "", "v", "--xyz--");
    const outer = new Uint8Array(inner.length + 20);
    outer.set(inner, 10);
    const body = outer.subarray(10, 10 + inner.length);
    const [part] = parseMultipart(body, typeFor("xyz"), limits);
    expect(part?.bytes.byteOffset).toBe(10 + inner.indexOf(0x76));
  });

  test("the Content-Type is matched case-insensitively and a quoted boundary is unquoted", () => {
    const body = lines(
      "--a b:c=d?",
      'Content-Disposition: form-data; name="x"',
      "",
      "1",
      "--a b:c=d?--",
    );
    expect(parse(body, 'Multipart/Form-Data ; charset=utf-8; BOUNDARY="a b:c=d?"')).toEqual([
      { name: "x", filename: undefined, contentType: undefined, text: "1" },
    ]);
  });

  test("the preamble and the epilogue are ignored, even when they mention the boundary", () => {
    const body = lines(
      "This is the preamble --xyz not at a line start.",
      "--xyz",
      'Content-Disposition: form-data; name="a"',
      "",
      "1",
      "--xyz--",
      "epilogue",
      "--xyz",
      "more epilogue",
    );
    expect(parse(body)).toEqual([
      { name: "a", filename: undefined, contentType: undefined, text: "1" },
    ]);
  });

  test("transport padding may follow any delimiter", () => {
    const body = lines(
      "--xyz \t",
      'Content-Disposition: form-data; name="a"',
      "",
      "1",
      "--xyz\t",
      'Content-Disposition: form-data; name="b"',
      "",
      "2",
      "--xyz--  ",
    );
    expect(parse(body).map((part) => part.text)).toEqual(["1", "2"]);
  });

  test('a quoted filename keeps ; and unescapes \\" and \\\\, leaving other backslashes', () => {
    const body = lines(
      "--xyz",
      'Content-Disposition: form-data; name="f;g"; filename="a;b \\"c\\".txt"',
      "",
      "",
      "--xyz",
      'Content-Disposition: form-data; name="w"; filename="C:\\dir\\x.txt"',
      "",
      "",
      "--xyz",
      'Content-Disposition: form-data; name="e"; filename="back\\\\slash"',
      "",
      "",
      "--xyz--",
    );
    expect(parse(body).map(({ name, filename }) => [name, filename])).toEqual([
      ["f;g", 'a;b "c".txt'],
      ["w", "C:\\dir\\x.txt"],
      ["e", "back\\slash"],
    ]);
  });

  test("bodies may hold CR, LF, -- and the boundary anywhere but after CRLF--", () => {
    const content = "line\r\n--\r\n-\r\n--xy\r\n-- xyz\r\nx--xyz\r\n\r\n--\r--xyz\n--xyz\r\n";
    const body = lines(
      "--xyz",
      'Content-Disposition: form-data; name="a"; filename="raw.bin"',
      "",
      content,
      "--xyz--",
    );
    expect(parse(body).map((part) => part.text)).toEqual([content]);
  });

  test("a part may have an empty body, or headers and no body at all", () => {
    const body = lines(
      "--xyz",
      'Content-Disposition: form-data; name="empty"; filename=""',
      "Content-Type: application/octet-stream",
      "",
      "",
      "--xyz",
      'Content-Disposition: form-data; name="headersOnly"',
      "",
      "--xyz--",
    );
    // The second part is MIME-part-headers without [CRLF *OCTET] (RFC 2046 §5.1.1): the CRLF
    // after its header line is the one that starts the next delimiter.
    expect(parse(body)).toEqual([
      { name: "empty", filename: "", contentType: "application/octet-stream", text: "" },
      { name: "headersOnly", filename: undefined, contentType: undefined, text: "" },
    ]);
  });

  test("header names and the disposition type are case-insensitive; a token name is accepted", () => {
    const body = lines(
      "--xyz",
      "content-disposition: Form-Data; NAME=field;filename=plain.txt",
      "CONTENT-TYPE:   text/plain; charset=utf-8  ",
      "Content-Transfer-Encoding: 8bit",
      "X-Other: ignored",
      "",
      "v",
      "--xyz--",
    );
    expect(parse(body)).toEqual([
      { name: "field", filename: "plain.txt", contentType: "text/plain; charset=utf-8", text: "v" },
    ]);
  });

  test("names and filenames are UTF-8; filename* is ignored (RFC 7578 §4.2)", () => {
    const body = lines(
      "--xyz",
      'Content-Disposition: form-data; name="café"; filename="文件.txt"; filename*=UTF-8\'\'x.txt',
      "",
      "ü",
      "--xyz",
      "Content-Disposition: form-data; name=\"only\"; filename*=UTF-8''y.txt",
      "",
      "",
      "--xyz--",
    );
    expect(parse(body).map(({ name, filename, text }) => [name, filename, text])).toEqual([
      ["café", "文件.txt", "ü"],
      ["only", undefined, ""],
    ]);
  });

  test("the first delimiter may open the body or follow a preamble's CRLF", () => {
    const part = ['Content-Disposition: form-data; name="a"', "", "1", "--xyz--"];
    expect(parse(lines("--xyz", ...part))).toEqual(parse(lines("", "--xyz", ...part)));
    expect(parse(lines("", "--xyz", ...part))).toHaveLength(1);
  });

  test("a body with only the close delimiter is an empty form", () => {
    expect(parse(lines("--xyz--", ""))).toEqual([]);
    expect(parse(lines("--xyz--"))).toEqual([]);
  });

  test("a 70-character boundary is accepted", () => {
    const boundary = "b".repeat(70);
    const body = lines(
      `--${boundary}`,
      'Content-Disposition: form-data; name="a"',
      "",
      "",
      `--${boundary}--`,
    );
    expect(parse(body, typeFor(boundary))).toHaveLength(1);
  });
});

describe("limits", () => {
  const threeParts = lines(
    ...["a", "b", "c"].flatMap((name) => [
      "--xyz",
      `Content-Disposition: form-data; name="${name}"`,
      "",
      name,
    ]),
    "--xyz--",
  );

  test("exactly maxParts parts pass; one more is tooManyParts", () => {
    expect(parse(threeParts, typeFor("xyz"), { ...limits, maxParts: 3 })).toHaveLength(3);
    expect(reasonOf(threeParts, typeFor("xyz"), { ...limits, maxParts: 2 })).toBe("tooManyParts");
    expect(reasonOf(lines("--xyz--"), typeFor("xyz"), { ...limits, maxParts: 0 })).toBe("no error");
  });

  test("a header section of exactly maxPartHeaderBytes passes; one byte more does not", () => {
    const header = 'Content-Disposition: form-data; name="a"';
    const body = lines("--xyz", header, "", "v", "--xyz--");
    const headerBytes = header.length + 2;
    expect(
      parse(body, typeFor("xyz"), { ...limits, maxPartHeaderBytes: headerBytes }),
    ).toHaveLength(1);
    expect(reasonOf(body, typeFor("xyz"), { ...limits, maxPartHeaderBytes: headerBytes - 1 })).toBe(
      "headerSectionTooLarge",
    );
  });

  test("limits that are not non-negative integers are a TypeError", () => {
    const body = lines("--xyz--");
    for (const bad of [
      { maxParts: -1, maxPartHeaderBytes: 1 },
      { maxParts: 1, maxPartHeaderBytes: 1.5 },
    ]) {
      expect(() => parseMultipart(body, typeFor("xyz"), bad)).toThrow(TypeError);
    }
  });
});

describe("invalid bodies are rejected whole", () => {
  const valid = ['Content-Disposition: form-data; name="a"', "", "1"];

  test("each malformed case has its reason", () => {
    const rows: { case: MultipartErrorReason; body: Uint8Array; contentType?: string }[] = [
      { case: "unsupportedMediaType", body: lines("--xyz--"), contentType: "application/json" },
      {
        case: "unsupportedMediaType",
        body: lines("--xyz--"),
        contentType: "multipart/mixed; boundary=xyz",
      },
      { case: "missingBoundary", body: lines("--xyz--"), contentType: "multipart/form-data" },
      {
        case: "missingBoundary",
        body: lines("--xyz--"),
        contentType: "multipart/form-data; charset=x",
      },
      {
        case: "invalidContentType",
        body: lines("--xyz--"),
        contentType: "multipart/form-data; boundary",
      },
      {
        case: "invalidContentType",
        body: lines("--xyz--"),
        contentType: 'multipart/form-data; boundary="xyz',
      },
      {
        case: "invalidContentType",
        body: lines("--xyz--"),
        contentType: "multipart/form-data; boundary=xyz; boundary=abc",
      },
      {
        case: "invalidBoundary",
        body: lines("--xyz--"),
        contentType: 'multipart/form-data; boundary=""',
      },
      { case: "invalidBoundary", body: lines("--xyz--"), contentType: typeFor("b".repeat(71)) },
      {
        case: "invalidBoundary",
        body: lines("--xyz--"),
        contentType: 'multipart/form-data; boundary="ab "',
      },
      {
        case: "invalidBoundary",
        body: lines("--xyz--"),
        contentType: 'multipart/form-data; boundary="a b;c"',
      },
      { case: "missingOpeningDelimiter", body: lines("no delimiter here", "") },
      { case: "missingOpeningDelimiter", body: lines("x--xyz", ...valid, "x--xyz--") },
      { case: "missingClosingDelimiter", body: lines("--xyz", ...valid) },
      { case: "missingClosingDelimiter", body: lines("--xyz", ...valid, "--xyz") },
      { case: "malformedDelimiter", body: lines("--xyz", ...valid, "--xyz-") },
      { case: "malformedDelimiter", body: lines("--xyzz", ...valid, "--xyz--") },
      { case: "malformedDelimiter", body: lines("--xyz", ...valid, "--xyz--x") },
      { case: "malformedDelimiter", body: lines("--xyz", ...valid, "--xyz -", "--xyz--") },
      {
        case: "malformedDelimiter",
        body: encoder.encode('--xyz\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--'),
      },
      {
        case: "missingContentDisposition",
        body: lines("--xyz", "Content-Type: text/plain", "", "1", "--xyz--"),
      },
      { case: "missingContentDisposition", body: lines("--xyz", "", "1", "--xyz--") },
      { case: "missingContentDisposition", body: lines("--xyz", "", "--xyz--") },
      {
        case: "missingName",
        body: lines("--xyz", 'Content-Disposition: form-data; filename="a"', "", "", "--xyz--"),
      },
      {
        case: "invalidContentDisposition",
        body: lines("--xyz", 'Content-Disposition: attachment; name="a"', "", "", "--xyz--"),
      },
      {
        case: "invalidContentDisposition",
        body: lines("--xyz", 'Content-Disposition: form-data; name="a', "", "", "--xyz--"),
      },
      {
        case: "invalidContentDisposition",
        body: lines("--xyz", "Content-Disposition: form-data; name=files[]", "", "", "--xyz--"),
      },
      {
        case: "invalidContentDisposition",
        body: lines("--xyz", "Content-Disposition: form-data name=a", "", "", "--xyz--"),
      },
      {
        case: "malformedHeader",
        body: lines("--xyz", ...valid.slice(0, 1), "NoColonHere", "", "1", "--xyz--"),
      },
      {
        case: "malformedHeader",
        body: lines("--xyz", ...valid.slice(0, 1), "X-Bad : 1", "", "1", "--xyz--"),
      },
      {
        case: "malformedHeader",
        body: lines("--xyz", ...valid.slice(0, 1), ": empty name", "", "1", "--xyz--"),
      },
      {
        case: "malformedHeader",
        body: lines("--xyz", ...valid.slice(0, 1), " folded", "", "1", "--xyz--"),
      },
      {
        case: "malformedHeader",
        body: lines("--xyz", `${valid[0]}\nX-Bare: lf`, "", "1", "--xyz--"),
      },
      {
        case: "malformedHeader",
        body: lines("--xyz", `${valid[0]}\rX-Bare: cr`, "", "1", "--xyz--"),
      },
      { case: "malformedHeader", body: lines("--xyz", `${valid[0]}\u0000`, "", "1", "--xyz--") },
      { case: "duplicateHeader", body: lines("--xyz", valid[0]!, valid[0]!, "", "1", "--xyz--") },
      {
        case: "duplicateHeader",
        body: lines(
          "--xyz",
          valid[0]!,
          "Content-Type: a/b",
          "content-type: a/b",
          "",
          "1",
          "--xyz--",
        ),
      },
      {
        case: "unterminatedHeaderSection",
        body: lines("--xyz", valid[0]!, "X-Next: 1", "--xyz--"),
      },
      { case: "unterminatedHeaderSection", body: lines("--xyz", valid[0]!, "--xyz--") },
      {
        case: "headerSectionTooLarge",
        body: lines("--xyz", `X-Long: ${"x".repeat(1100)}`, "--xyz--"),
      },
      {
        case: "invalidUtf8",
        body: Uint8Array.from([
          ...encoder.encode('--xyz\r\nContent-Disposition: form-data; name="'),
          0xff,
          ...encoder.encode('"\r\n\r\n1\r\n--xyz--'),
        ]),
      },
    ];
    expect(
      rows.map((row) => ({ case: row.case, reason: reasonOf(row.body, row.contentType) })),
    ).toEqual(rows.map((row) => ({ case: row.case, reason: row.case })));
  });

  test("a header line that starts with the boundary is rejected, even when it has a colon", () => {
    const body = lines("--a:b", "--a:b", valid[0]!, "", "1", "--a:b--");
    expect(reasonOf(body, typeFor('"a:b"'))).toBe("malformedHeader");
  });

  test("a valid first part does not make it out when a later part is invalid", () => {
    const body = lines("--xyz", ...valid, "--xyz", "Content-Type: text/plain", "", "2", "--xyz--");
    expect(reasonOf(body)).toBe("missingContentDisposition");
  });

  test("MultipartError is an Error with a name and a reason", () => {
    let caught: unknown;
    try {
      parseMultipart(lines("--xyz", ...valid), typeFor("xyz"), limits);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    const error = caught as MultipartError;
    expect({ name: error.name, reason: error.reason }).toEqual({
      name: "MultipartError",
      reason: "missingClosingDelimiter",
    });
  });
});

describe("seeded random bodies", () => {
  test("random contents built from CR, LF, - and boundary pieces come back byte for byte", () => {
    let seed = 0x5eed;
    const random = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 8;
    };
    const alphabet = [
      "\r",
      "\n",
      "-",
      "x",
      "y",
      "z",
      "a",
      "\r\n",
      "--",
      "--xyz",
      "\r\n-",
      "\u00ff",
    ];
    for (let round = 0; round < 500; round++) {
      const contents: string[] = [];
      for (let count = random() % 5; count > 0; count--) {
        let content = "";
        for (let length = random() % 20; length > 0; length--) {
          content += alphabet[random() % alphabet.length];
        }
        // The one rule a sender follows (RFC 2046 §5.1.1): the boundary never starts a line of a
        // part, the first line included.
        if (!`\r\n${content}`.includes("\r\n--xyz")) {
          contents.push(content);
        }
      }
      const body = lines(
        ...contents.flatMap((content, index) => [
          "--xyz",
          `Content-Disposition: form-data; name="p${index}"`,
          "",
          content,
        ]),
        "--xyz--",
      );
      expect(parse(body).map((part) => part.text)).toEqual(contents);
    }
  });
});
