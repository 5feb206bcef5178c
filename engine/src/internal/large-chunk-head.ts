import type { ParsedHead } from "../parser/parsed-head.ts";
import { releasedChunkMinimumBytes } from "./socket-chunks.ts";

/**
 * Moves a complete head out of a large chunk (one `releaseChunk` frees: a body follows it) into
 * the slot's head buffer, and says whether it did. The request then no longer points into the
 * chunk, which is freed once its body bytes are copied to the worker's storage, instead of being
 * kept until the request ends: 64 uploads in progress kept up to 512 KiB each (32 MiB) outside
 * the reservation. Small chunks stay: copying their heads would cost every small request.
 */
export function moveHeadOutOfLargeChunk(head: ParsedHead, headBuffer: Uint8Array): boolean {
  const chunk = head.buffer;
  if (chunk.byteLength < releasedChunkMinimumBytes || chunk === headBuffer) return false;
  if (head.headEnd > headBuffer.length) return false;
  headBuffer.set(chunk.subarray(head.base, head.base + head.headEnd), 0);
  head.buffer = headBuffer;
  head.base = 0;
  return true;
}
