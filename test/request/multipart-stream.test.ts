import { expect, test } from "bun:test";
import { App, MultipartError } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { type MultipartLimits, parseMultipart } from "../../src/request/multipart.ts";
import { MultipartStream, type PieceSource } from "../../src/request/multipart-stream.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const limits = { maxParts: 3, maxPartHeaderBytes: 64 };
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const contentType = "multipart/form-data; boundary=xyz";
const lines = (...parts: string[]) => encoder.encode(parts.join("\r\n"));

/**
 * Hands `body` over in pieces of `size` bytes, each a fresh copy that is overwritten as soon as
 * the next one is asked for: a reader that kept a borrowed piece too long sees garbage.
 */
function piecesOf(body: Uint8Array, size: number): PieceSource {
  let offset = 0;
  let previous: Uint8Array | null = null;
  return {
    async next() {
      previous?.fill(0x23);
      if (offset >= body.length) return null;
      previous = body.slice(offset, offset + size);
      offset += size;
      return previous;
    },
  };
}

type Outcome = string | { name: string; filename?: string; type?: string; text: string }[];

async function readStreamed(source: PieceSource, partLimits: MultipartLimits): Promise<Outcome> {
  const parts: Exclude<Outcome, string> = [];
  try {
    for await (const part of new MultipartStream(source, contentType, partLimits)) {
      let text = "";
      for await (const piece of part.content()) text += decoder.decode(piece, { stream: true });
      parts.push({ name: part.name, filename: part.filename, type: part.contentType, text });
    }
  } catch (error) {
    if (error instanceof MultipartError) return error.reason;
    throw error;
  }
  return parts;
}

function readWhole(body: Uint8Array, partLimits: MultipartLimits): Outcome {
  try {
    return parseMultipart(body, contentType, partLimits).map((part) => ({
      name: part.name,
      filename: part.filename,
      type: part.contentType,
      text: decoder.decode(part.bytes),
    }));
  } catch (error) {
    if (error instanceof MultipartError) return error.reason;
    throw error;
  }
}

/** A form with one text field per name, each holding its name. */
function formOf(names: string[]): Uint8Array {
  const fields = names.map(
    (name) => `--xyz\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${name}`,
  );
  return lines(...fields, "--xyz--", "");
}

const header64 = `Content-Disposition: form-data; name="${"n".repeat(23)}"`; // 62 bytes + CRLF = 64
const bodies: Record<string, Uint8Array> = {
  fieldsAndFiles: lines(
    "preamble --xy",
    "--xyz",
    'Content-Disposition: form-data; name="title"',
    "",
    "Hello\r\n--xy almost a delimiter \r\n--x",
    "--xyz  ",
    'Content-Disposition: form-data; name="file"; filename="a.txt"',
    "Content-Type: text/plain",
    "",
    "",
    "--xyz--",
    "epilogue",
  ),
  // body-part := MIME-part-headers [CRLF *OCTET] (RFC 2046 §5.1.1): headers and no body, the
  // CRLF after the header line starting the delimiter; and the usual empty body after CRLFCRLF.
  headersOnly: lines("--xyz", 'Content-Disposition: form-data; name="a"', "", "--xyz--", ""),
  headersOnlyThenPart: lines(
    "--xyz",
    'Content-Disposition: form-data; name="a"',
    "",
    "--xyz",
    'Content-Disposition: form-data; name="b"',
    "",
    "b",
    "--xyz--",
  ),
  emptyContent: lines("--xyz", 'Content-Disposition: form-data; name="a"', "", "", "--xyz--", ""),
  contentStartingLikeDelimiter: lines(
    "--xyz",
    'Content-Disposition: form-data; name="a"',
    "",
    "--xy\r\n--x",
    "--xyz",
    'Content-Disposition: form-data; name="b"',
    "",
    "\r\n--xyZ",
    "--xyz--",
  ),
  headersOnlyThenJunk: lines("--xyz", 'Content-Disposition: form-data; name="a"', "", "--xyzX", ""),
  bareCloseAtEnd: encoder.encode(
    '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--xyz--',
  ),
  headersExactlyAtLimit: lines("--xyz", header64, "", "v", "--xyz--", ""),
  headersOneOver: lines("--xyz", `${header64}x`, "", "v", "--xyz--", ""),
  partsAtLimit: formOf(["a", "b", "c"]),
  partsOneOver: formOf(["a", "b", "c", "d"]),
  noOpening: lines("no delimiter here", ""),
  noClosing: lines("--xyz", 'Content-Disposition: form-data; name="a"', "", "unfinished"),
  malformedDelimiter: lines(
    "--xyz",
    'Content-Disposition: form-data; name="a"',
    "",
    "x",
    "--xyzX",
    "",
  ),
  missingName: lines("--xyz", "Content-Disposition: form-data", "", "x", "--xyz--", ""),
  duplicateHeader: lines(
    "--xyz",
    'Content-Disposition: form-data; name="a"',
    'Content-Disposition: form-data; name="b"',
    "",
    "x",
    "--xyz--",
    "",
  ),
};

test("streamed multipart gives what multipart() gives, whatever the piece sizes", async () => {
  const mismatches: string[] = [];
  for (const [label, body] of Object.entries(bodies)) {
    const expected = readWhole(body, limits);
    for (let size = 1; size <= body.length; size++) {
      const streamed = await readStreamed(piecesOf(body, size), limits);
      if (JSON.stringify(streamed) !== JSON.stringify(expected)) {
        mismatches.push(`${label} in ${size}-byte pieces: ${JSON.stringify(streamed)}`);
        break;
      }
    }
  }
  expect(mismatches).toEqual([]);
  // The boundaries themselves: exactly at each limit passes, one over fails.
  expect({
    headersAtLimit: typeof readWhole(bodies.headersExactlyAtLimit!, limits),
    headersOver: readWhole(bodies.headersOneOver!, limits),
    partsAtLimit: typeof readWhole(bodies.partsAtLimit!, limits),
    partsOver: readWhole(bodies.partsOneOver!, limits),
  }).toEqual({
    headersAtLimit: "object",
    headersOver: "headerSectionTooLarge",
    partsAtLimit: "object",
    partsOver: "tooManyParts",
  });
});

test("a part with headers and no body is an empty part, streamed or whole", async () => {
  const outcomes: Record<string, Outcome[]> = {};
  for (const label of [
    "headersOnly",
    "headersOnlyThenPart",
    "emptyContent",
    "headersOnlyThenJunk",
  ]) {
    const body = bodies[label]!;
    outcomes[label] = [readWhole(body, limits), await readStreamed(piecesOf(body, 1), limits)];
  }
  const a = { name: "a", text: "" };
  const b = { name: "b", text: "b" };
  expect(JSON.parse(JSON.stringify(outcomes))).toEqual({
    headersOnly: [[a], [a]],
    headersOnlyThenPart: [
      [a, b],
      [a, b],
    ],
    emptyContent: [[a], [a]],
    headersOnlyThenJunk: ["malformedDelimiter", "malformedDelimiter"],
  });
});

test("a part's content asked for after the next part is a TypeError; unread content is skipped", async () => {
  const body = formOf(["a", "b", "c"]);
  const stream = new MultipartStream(piecesOf(body, 7), contentType, limits);
  const first = await stream.next();
  const second = await stream.next();
  let secondText = "";
  for await (const piece of second!.content()) secondText += decoder.decode(piece);
  const third = await stream.next();
  const end = await stream.next();
  const failures: string[] = [];
  for (const part of [first!, second!, third!]) {
    try {
      for await (const _piece of part.content());
    } catch (error) {
      failures.push(`${(error as Error).name}: ${(error as Error).message}`);
    }
  }
  const passed = (name: string) =>
    `TypeError: corral: multipart part "${name}" was passed: read a part's content before asking for the next part`;
  expect({ names: [first?.name, second?.name, third?.name], secondText, end, failures }).toEqual({
    names: ["a", "b", "c"],
    secondText: "b",
    end: null,
    failures: [passed("a"), passed("b"), passed("c")],
  });
});

test("a 256 MiB file part streams through a multipart upload with its SHA-256 intact", async () => {
  const app = new App({ shared: {} });
  app.route(
    "POST",
    "/files",
    async (ctx) => {
      const files: string[] = [];
      for await (const part of ctx.request.multipartStream()) {
        const hasher = new Bun.CryptoHasher("sha256");
        let size = 0;
        for await (const piece of part.content()) {
          hasher.update(piece);
          size += piece.length;
        }
        files.push(`${part.name}:${part.filename ?? ""}:${size}:${hasher.digest("hex")}`);
      }
      ctx.response.text(201, files.join("\n"));
    },
    { body: "stream" },
  );
  const server = listenQuietly(app);
  const total = 256 * 1024 * 1024;
  const block = crypto.getRandomValues(new Uint8Array(1024 * 1024));
  const head = encoder.encode(
    '--b0undary\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n' +
      '--b0undary\r\nContent-Disposition: form-data; name="upload"; filename="big.bin"\r\n' +
      "Content-Type: application/octet-stream\r\n\r\n",
  );
  const tail = encoder.encode("\r\n--b0undary--\r\n");
  using client = await RawClient.connect(server.port);
  client.send(
    "POST /files HTTP/1.1\r\nHost: h\r\nContent-Type: multipart/form-data; boundary=b0undary\r\n" +
      `Content-Length: ${head.length + total + tail.length}\r\n\r\n`,
  );
  await client.sendAll(head);
  const hasher = new Bun.CryptoHasher("sha256");
  for (let index = 0; index < total / block.length; index++) {
    block[0] = index & 0xff;
    hasher.update(block);
    await client.sendAll(block);
  }
  await client.sendAll(tail);
  const response = await client.response(60_000);
  const noteDigest = new Bun.CryptoHasher("sha256").update("hi").digest("hex");
  expect({
    status: response.status,
    text: response.text,
    copiedToWindow: app.stats().bytesCopiedToWindow,
  }).toEqual({
    status: 201,
    text: `note::2:${noteDigest}\nupload:big.bin:${total}:${hasher.digest("hex")}`,
    copiedToWindow: 0,
  });
  await app.stop();
}, 120_000);

test("a malformed streamed multipart body is a 400 when nothing was sent yet", async () => {
  const app = new App({ shared: {} });
  app.route(
    "POST",
    "/files",
    async (ctx) => {
      for await (const part of ctx.request.multipartStream()) {
        for await (const _piece of part.content());
      }
      ctx.response.text(201, "stored");
    },
    { body: "stream" },
  );
  const server = listenQuietly(app);
  const body = 'garbage\r\n--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nno end';
  using client = await RawClient.connect(server.port);
  client.send(
    `POST /files HTTP/1.1\r\nHost: h\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  );
  const response = await client.response();
  expect(response.status).toBe(400);
  await app.stop();
});
