import type { ContentCoding } from "../http/content-coding.ts";
import { zlibModule } from "../http/zlib-module.ts";

/** Below this a variant saves too little to be worth a second entity and a `Vary` lookup. */
const minimumBytes = 256;

/**
 * `bytes` compressed with `coding` at the highest level (done once, at startup), or undefined
 * when the content is small or does not shrink by at least a tenth.
 */
export function precompress(bytes: Uint8Array, coding: ContentCoding): Uint8Array | undefined {
  if (bytes.length < minimumBytes) return undefined;
  let compressed: Uint8Array;
  if (coding === "br") {
    const { brotliCompressSync, constants } = zlibModule();
    compressed = brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    });
  } else if (coding === "zstd") {
    compressed = Bun.zstdCompressSync(bytes, { level: 19 });
  } else {
    compressed = Bun.gzipSync(bytes as Uint8Array<ArrayBuffer>, { level: 9 });
  }
  return compressed.length <= bytes.length * 0.9 ? new Uint8Array(compressed) : undefined;
}
