import { brotliDecompressSync, gunzipSync } from "node:zlib";

/** `bytes` decoded from `coding` (gzip, br, zstd; anything else as they are) as UTF-8 text. */
export function decodeCoding(coding: string | undefined, bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes);
  if (coding === "gzip") return gunzipSync(buffer).toString();
  if (coding === "br") return brotliDecompressSync(buffer).toString();
  if (coding === "zstd") return Buffer.from(Bun.zstdDecompressSync(buffer)).toString();
  return buffer.toString();
}
