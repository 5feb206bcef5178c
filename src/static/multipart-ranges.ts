import type { ByteRange } from "../http/byte-ranges.ts";

/** The layout of a `multipart/byteranges` body (RFC 9110 §14.6): each part's head, and the end. */
export interface MultipartLayout {
  readonly contentType: string;
  /** The text before each part's bytes (delimiter, Content-Type, Content-Range, blank line). */
  readonly partHeads: readonly string[];
  readonly closing: string;
  /** The exact body length, sent as Content-Length. */
  readonly length: number;
}

/**
 * Lays out the parts of a multipart answer for `ranges` of a `size`-byte file of `contentType`.
 * The boundary is random per answer (RFC 2046 §5.1.1: it must not occur in the parts; 128 random
 * bits make that as good as certain for any file).
 */
export function layoutMultipart(
  ranges: readonly ByteRange[],
  size: number,
  contentType: string,
): MultipartLayout {
  const boundary = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
  const partHeads: string[] = [];
  let length = 0;
  for (let index = 0; index < ranges.length; index++) {
    const range = ranges[index]!;
    const head =
      `${index === 0 ? "" : "\r\n"}--${boundary}\r\nContent-Type: ${contentType}\r\n` +
      `Content-Range: bytes ${range.start}-${range.end}/${size}\r\n\r\n`;
    partHeads.push(head);
    // The heads are ASCII: the content type is a validated header value.
    length += head.length + (range.end - range.start + 1);
  }
  const closing = `\r\n--${boundary}--\r\n`;
  length += closing.length;
  return {
    contentType: `multipart/byteranges; boundary=${boundary}`,
    partHeads,
    closing,
    length,
  };
}
