import { type ByteRange, parseRange, type RangeLimits } from "../http/byte-ranges.ts";
import { evaluatePreconditions, ifRangeAllows } from "../http/conditional-requests.ts";
import { type ContentCoding, chooseContentCoding } from "../http/content-coding.ts";
import type { RequestView } from "../request-view.ts";
import type { ResponseDraft } from "../response-draft.ts";
import { writeFileRange } from "./file-body.ts";
import { layoutMultipart } from "./multipart-ranges.ts";
import type { FileSource, StaticFile } from "./static-file.ts";

/** Bodies in memory up to this size are copied into staging rather than borrowed. */
const copyBelowBytes = 4096;

/** What one answer needs to know besides the request. */
export interface FileAnswer {
  readonly source: FileSource;
  /** The file's name under the folder, for its variants. */
  readonly name: string;
  readonly identity: StaticFile;
  readonly contentType: string;
  readonly cacheControl: string | undefined;
  /** Codings looked for beside the file, in the server's order of preference; empty for none. */
  readonly codings: readonly ContentCoding[];
  readonly rangeLimits: RangeLimits;
}

/**
 * Answers a GET or HEAD for one file: picks the representation (a precompressed variant when the
 * client accepts it and no Range is asked), evaluates the preconditions (RFC 9110 §13.2.2), then
 * the Range of a GET (§14.2, with If-Range §13.1.5), and sends 200, 206, 304, 412 or 416. Every
 * representation has its own strong ETag; `Vary: Accept-Encoding` wherever a variant could be
 * chosen, 304s included.
 */
export function answerFile(
  request: RequestView,
  response: ResponseDraft,
  answer: FileAnswer,
): void | Promise<void> {
  const opened: StaticFile[] = [answer.identity];
  let pending: void | Promise<void>;
  try {
    pending = respond(request, response, answer, opened);
  } catch (error) {
    closeAll(opened);
    throw error;
  }
  // Files in memory answer at once, without a promise; a file read in pieces closes when sent.
  if (pending === undefined) closeAll(opened);
  else return pending.finally(() => closeAll(opened));
}

function closeAll(files: readonly StaticFile[]): void {
  for (const file of files) file.close();
}

function respond(
  request: RequestView,
  response: ResponseDraft,
  answer: FileAnswer,
  opened: StaticFile[],
): void | Promise<void> {
  const header = (name: string) => request.header(name);
  // RFC 9110 §14.2: range handling is defined for GET alone, and a Range on any other method MUST
  // be ignored: a HEAD answers the head of the GET without it (200, the whole length).
  const rangeHeader = request.method === "GET" ? header("range") : undefined;
  let file = answer.identity;
  let coding: ContentCoding | undefined;
  {
    // Ranges are always served from the identity file: byte offsets of a compressed variant mean
    // nothing to a client resuming a download, and a 206 is never compressed.
    if (answer.codings.length > 0 && rangeHeader === undefined) {
      const variant = pickVariant(answer, header("accept-encoding"));
      if (variant !== undefined) {
        file = variant.file;
        coding = variant.coding;
        opened.push(file);
      }
    }
    const validators = file.validators;
    response.header("ETag", validators.etag);
    if (validators.lastModifiedText !== undefined) {
      response.header("Last-Modified", validators.lastModifiedText);
    }
    if (answer.cacheControl !== undefined) response.header("Cache-Control", answer.cacheControl);
    if (answer.codings.length > 0) response.header("Vary", "Accept-Encoding");
    const precondition = evaluatePreconditions(request.method, header, validators);
    if (precondition === "not-modified") {
      response.setStatus(304);
      return;
    }
    if (precondition === "precondition-failed") {
      response.text(412, "Precondition Failed\n");
      return;
    }
    response.header("Accept-Ranges", "bytes");
    if (file !== answer.identity) {
      response.header("Content-Encoding", coding!);
      return sendWhole(request, response, file, answer.contentType);
    }
    if (rangeHeader === undefined || !ifRangeAllows(header, validators)) {
      return sendWhole(request, response, file, answer.contentType);
    }
    const ranges = parseRange(rangeHeader, file.size, answer.rangeLimits);
    if (ranges.kind === "whole") return sendWhole(request, response, file, answer.contentType);
    if (ranges.kind === "unsatisfiable") {
      response.header("Content-Range", `bytes */${file.size}`);
      response.text(416, "Range Not Satisfiable\n");
      return;
    }
    if (ranges.ranges.length === 1) {
      const range = ranges.ranges[0]!;
      response.header("Content-Range", `bytes ${range.start}-${range.end}/${file.size}`);
      return sendRange(request, response, file, answer.contentType, 206, range);
    }
    return sendMultipart(request, response, file, answer.contentType, ranges.ranges);
  }
}

/** The best variant the client accepts (opened), or undefined for the file itself. */
function pickVariant(
  answer: FileAnswer,
  acceptEncoding: string | undefined,
): { readonly file: StaticFile; readonly coding: ContentCoding } | undefined {
  if (acceptEncoding === undefined) return undefined;
  let candidates = answer.codings;
  for (;;) {
    const choice = chooseContentCoding(acceptEncoding, candidates);
    // "identity", or identity refused too (RFC 9110 §12.5.3 lets a server send it anyway).
    if (choice === undefined || choice === "identity") return undefined;
    const file = answer.source.variant(answer.name, choice);
    if (file !== undefined) return { file, coding: choice };
    candidates = candidates.filter((coding) => coding !== choice);
    if (candidates.length === 0) return undefined;
  }
}

function sendWhole(
  request: RequestView,
  response: ResponseDraft,
  file: StaticFile,
  contentType: string,
): void | Promise<void> {
  return sendRange(request, response, file, contentType, 200, { start: 0, end: file.size - 1 });
}

function sendRange(
  request: RequestView,
  response: ResponseDraft,
  file: StaticFile,
  contentType: string,
  status: number,
  range: ByteRange,
): void | Promise<void> {
  const length = range.end - range.start + 1;
  if (file.bytes !== undefined) {
    // In memory: larger bodies go to the socket by reference; HEAD sends their length only.
    const whole = range.start === 0 && length === file.size;
    const bytes = whole ? file.bytes : file.bytes.subarray(range.start, range.end + 1);
    // A small body is copied: one write of head and body costs less than a vectored write.
    if (length <= copyBelowBytes) response.bytes(status, contentType, bytes);
    else response.borrowBody(status, contentType, bytes);
    return;
  }
  const stream = response.stream(status, contentType, { contentLength: length });
  if (request.method === "HEAD" || length === 0) return;
  return writeFileRange(stream.writer(), file, range.start, range.end);
}

async function sendMultipart(
  request: RequestView,
  response: ResponseDraft,
  file: StaticFile,
  contentType: string,
  ranges: readonly ByteRange[],
): Promise<void> {
  const layout = layoutMultipart(ranges, file.size, contentType);
  const stream = response.stream(206, layout.contentType, { contentLength: layout.length });
  if (request.method === "HEAD") return;
  const writer = stream.writer();
  for (let index = 0; index < ranges.length; index++) {
    await writer.writeAll(layout.partHeads[index]!);
    await writeFileRange(writer, file, ranges[index]!.start, ranges[index]!.end);
  }
  await writer.writeAll(layout.closing);
}
