// Seeded random multipart/form-data bodies: random boundaries, names and filenames, contents
// built from CR, LF, dashes and pieces of the boundary, preambles and epilogues, and in most
// cases a few damaged bytes. The buffered parser and the streamed one, fed in random pieces,
// must give the same parts or both refuse; and a body a browser could send must read as Bun's
// own `Request.formData()` reads it, and give back what was sent. Set CORRAL_FUZZ_SEED to replay another run.
import { expect, test } from "bun:test";
import { MultipartError } from "corral";
import { caseSeed, masterSeed, SeededRandom } from "../../engine/test/support/seeded-random.ts";
import { type MultipartLimits, parseMultipart } from "../../src/request/multipart.ts";
import { MultipartStream, type PieceSource } from "../../src/request/multipart-stream.ts";

const cases = 1500;
const encoder = new TextEncoder();
const boundaryAlphabet = "abcXYZ0189'()+_,-./:=? ";
const nameAlphabet = ["a", "b", "Z", "_", "-", "é", "日", " ", "[", "]", "%22", "%0D%0A"];

interface Built {
  readonly boundary: string;
  readonly body: Uint8Array;
  /** The parts as sent, when the body was left undamaged. */
  readonly parts: readonly {
    name: string;
    filename?: string;
    type?: string;
    content: Uint8Array;
  }[];
  readonly damaged: boolean;
  /**
   * Whether no part holds the delimiter anywhere, as a browser guarantees by its choice of
   * boundary. RFC 2046 §5.1.1 forbids it only at the start of a line, and corral reads it
   * mid-line as content; Bun's `formData()` takes it for a delimiter wherever it is.
   */
  readonly browserShaped: boolean;
}

function text(random: SeededRandom, alphabet: readonly string[], most: number): string {
  let result = "";
  for (let length = random.between(1, most); length > 0; length--) result += random.pick(alphabet);
  return result;
}

function build(random: SeededRandom): Built {
  let boundary = text(random, [...boundaryAlphabet], 20);
  // RFC 2046 §5.1.1: the last character is not a space.
  if (boundary.endsWith(" ")) boundary = `${boundary.slice(0, -1)}q`;
  const contentPieces = [
    "x",
    "\r",
    "\n",
    "\r\n",
    "-",
    "--",
    `--${boundary.slice(0, -1)}`,
    "\u00ff",
    "é",
  ];
  const parts = Array.from({ length: random.below(5) }, (_, index) => {
    let content = "";
    for (let length = random.below(12); length > 0; length--) content += random.pick(contentPieces);
    // What a sender guarantees (RFC 2046 §5.1.1): no line of a part starts with the delimiter.
    if (`\r\n${content}`.includes(`\r\n--${boundary}`)) content = "";
    const isFile = random.oneIn(3);
    return {
      name: `${text(random, nameAlphabet, 6)}${index}`,
      ...(isFile
        ? { filename: random.oneIn(6) ? "" : `${text(random, nameAlphabet, 6)}.txt` }
        : {}),
      ...(isFile && random.oneIn(2) ? { type: "text/plain" } : {}),
      content: encoder.encode(content),
    };
  });
  const chunks: Uint8Array[] = [];
  if (random.oneIn(4)) chunks.push(encoder.encode("preamble\r\n"));
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += "\r\n";
    if (part.type !== undefined) head += `Content-Type: ${part.type}\r\n`;
    chunks.push(encoder.encode(`${head}\r\n`), part.content, encoder.encode("\r\n"));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  if (random.oneIn(4)) chunks.push(encoder.encode("epilogue"));
  let body = new Uint8Array(Buffer.concat(chunks));
  const damaged = !random.oneIn(3);
  if (damaged) {
    const bytes = Array.from(body);
    for (let count = random.between(1, 3); count > 0; count--) {
      const at = random.below(bytes.length + 1);
      switch (random.below(4)) {
        case 0:
          if (at < bytes.length)
            bytes[at] = random.pick([0x0d, 0x0a, 0x2d, 0x22, 0x3b, 0x00, 0xff]);
          break;
        case 1:
          bytes.splice(at, 0, random.pick([0x0d, 0x0a, 0x2d, 0x20]));
          break;
        case 2:
          bytes.splice(at, 1 + random.below(3));
          break;
        default:
          bytes.length = at;
      }
    }
    body = new Uint8Array(bytes);
  }
  const browserShaped = parts.every(
    (part) => !Buffer.from(part.content).toString("latin1").includes(`--${boundary}`),
  );
  return { boundary, body, parts, damaged, browserShaped };
}

type Outcome = string | { name: string; filename?: string; type?: string; content: string }[];

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

function whole(body: Uint8Array, contentType: string, limits: MultipartLimits): Outcome {
  try {
    return parseMultipart(body, contentType, limits).map((part) => ({
      name: part.name,
      filename: part.filename,
      type: part.contentType,
      content: hex(part.bytes),
    }));
  } catch (error) {
    if (error instanceof MultipartError) return error.reason;
    throw error;
  }
}

/** Pieces of the given sizes, each a fresh copy overwritten once the next is asked for. */
function piecesOf(body: Uint8Array, cuts: readonly number[]): PieceSource {
  const ends = [...cuts, body.length];
  let start = 0;
  let previous: Uint8Array | null = null;
  return {
    async next() {
      previous?.fill(0x23);
      const end = ends.shift();
      if (end === undefined) return null;
      previous = body.slice(start, end);
      start = end;
      return previous;
    },
  };
}

async function streamed(
  body: Uint8Array,
  cuts: readonly number[],
  contentType: string,
  limits: MultipartLimits,
): Promise<Outcome> {
  const parts: Exclude<Outcome, string> = [];
  try {
    for await (const part of new MultipartStream(piecesOf(body, cuts), contentType, limits)) {
      const pieces: Uint8Array[] = [];
      for await (const piece of part.content()) pieces.push(piece.slice());
      parts.push({
        name: part.name,
        filename: part.filename,
        type: part.contentType,
        content: hex(Buffer.concat(pieces)),
      });
    }
  } catch (error) {
    if (error instanceof MultipartError) return error.reason;
    throw error;
  }
  return parts;
}

test(`${cases} random multipart bodies: buffered and streamed in random pieces agree, and browser-shaped ones read as Bun's formData reads them (seed ${masterSeed})`, async () => {
  const mismatches: unknown[] = [];
  const outcomes = new Map<string, number>();
  let comparedWithBun = 0;
  for (let index = 0; index < cases; index++) {
    const seed = caseSeed("multipart", index);
    const random = new SeededRandom(seed);
    const built = build(random);
    const contentType = `multipart/form-data; boundary="${built.boundary}"`;
    const limits = {
      maxParts: random.oneIn(5) ? random.below(4) : 100,
      maxPartHeaderBytes: random.oneIn(5) ? random.between(40, 120) : 4096,
    };
    const expected = whole(built.body, contentType, limits);
    const outcome = typeof expected === "string" ? expected : "parts";
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    const cuts = random.cuts(built.body.length, 8);
    const seen = await streamed(built.body, cuts, contentType, limits);
    // Both refuse, or both give the same parts. The reasons may differ for a body with several
    // faults: the buffered parser checks the delimiters before the headers between them, the
    // streamed one names the first fault in the order the bytes come.
    const refused = (outcome: Outcome) => (typeof outcome === "string" ? "refused" : outcome);
    if (JSON.stringify(refused(seen)) !== JSON.stringify(refused(expected))) {
      mismatches.push({ seed, what: "streamed", cuts, expected, seen });
      continue;
    }
    if (built.damaged || typeof expected === "string") continue;
    // Undamaged: what was sent, and what Bun's own parser reads from the same bytes.
    const sent = built.parts.map((part) => ({
      name: part.name,
      filename: part.filename,
      type: part.type,
      content: hex(part.content),
    }));
    if (!built.browserShaped) {
      if (JSON.stringify(expected) !== JSON.stringify(JSON.parse(JSON.stringify(sent)))) {
        mismatches.push({ seed, what: "as sent", sent, expected });
      }
      continue;
    }
    const bun = await new Request("http://localhost/", {
      method: "POST",
      headers: { "Content-Type": contentType },
      body: built.body,
    }).formData();
    const fromBun = [...bun.entries()].map(([name, value]) => [
      name,
      typeof value === "string" ? "field" : "file",
    ]);
    comparedWithBun++;
    if (
      JSON.stringify(expected) !== JSON.stringify(JSON.parse(JSON.stringify(sent))) ||
      JSON.stringify(fromBun) !==
        JSON.stringify(
          sent.map((part) => [part.name, part.filename === undefined ? "field" : "file"]),
        )
    ) {
      mismatches.push({ seed, what: "as sent, or as Bun reads it", sent, expected, fromBun });
    }
  }
  expect({
    seed: masterSeed,
    mismatches: mismatches.slice(0, 3),
    count: mismatches.length,
    someParsed: (outcomes.get("parts") ?? 0) > cases / 4,
    someRefused: outcomes.size > 4,
    comparedWithBun: comparedWithBun > cases / 10,
  }).toEqual({
    seed: masterSeed,
    mismatches: [],
    count: 0,
    someParsed: true,
    someRefused: true,
    comparedWithBun: true,
  });
}, 60_000);
