import type { ParsedHead } from "../parser/parsed-head.ts";

/**
 * The default dispatch key: a hash (FNV-1a) of the request's path bytes as sent, without the
 * query, so requests of one path share their fairness. Linear in the path, allocates nothing;
 * paths that collide after folding merely share a key.
 */
export function pathDispatchKey(head: ParsedHead): number {
  const buffer = head.buffer;
  const end = head.base + head.pathEnd;
  let hash = 0x811c9dc5;
  for (let at = head.base + head.pathStart; at < end; at++) {
    hash = Math.imul(hash ^ buffer[at]!, 0x01000193);
  }
  // A signed 32-bit integer, never a double (`>>> 0` gives one past 2^31); the lease folds it.
  return hash | 0;
}
