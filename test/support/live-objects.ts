import { heapStats } from "bun:jsc";

/**
 * The number of live plain objects after a full collection: the difference around a call tells
 * how many objects it left reachable (within a few, as the collector scans the stack
 * conservatively).
 */
export function liveObjects(): number {
  Bun.gc(true);
  return heapStats().objectTypeCounts.Object ?? 0;
}
