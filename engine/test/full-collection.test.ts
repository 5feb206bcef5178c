import { describe, expect, test } from "bun:test";
import {
  FullCollectionPacing,
  heapLookIntervalMs,
  minimumGrowthBeforeFullCollection,
  youngCollectionsPerHeapLook,
} from "../src/internal/full-collection.ts";
import { countedEdenCollection } from "../src/internal/young-collection.ts";

const MiB = 1024 * 1024;

/**
 * A pacing over a heap whose size the test sets; a full collection shrinks it to `live`. Each
 * look at the heap is `heapLookIntervalMs` after the last unless the test moves the clock.
 */
function pacedHeap(reservedBytes: number) {
  const heap = { size: 0, live: 0, collections: 0, looks: 0, clock: 0, autoAdvance: true };
  const pacing = new FullCollectionPacing(
    () => {
      heap.looks++;
      return heap.size;
    },
    () => {
      heap.collections++;
      heap.size = heap.live;
    },
    () => {
      if (heap.autoAdvance) heap.clock += heapLookIntervalMs;
      return heap.clock;
    },
  );
  pacing.countReserved(reservedBytes);
  return { heap, pacing };
}

describe("FullCollectionPacing", () => {
  test("collects once the heap grew past minimumGrowthBeforeFullCollection, not a byte before", () => {
    const { heap, pacing } = pacedHeap(100 * MiB);
    heap.size = heap.live = 104 * MiB;
    // The first look only takes the base.
    expect(pacing.afterYoungCollection()).toBe(false);
    heap.size = 104 * MiB + minimumGrowthBeforeFullCollection;
    expect(pacing.afterYoungCollection()).toBe(false);
    heap.size++;
    expect([pacing.afterYoungCollection(), heap.collections]).toEqual([true, 1]);
    // The size after the collection is the next base.
    heap.size = 104 * MiB + minimumGrowthBeforeFullCollection;
    expect([pacing.afterYoungCollection(), heap.collections]).toEqual([false, 1]);
    heap.size++;
    expect([pacing.afterYoungCollection(), heap.collections]).toEqual([true, 2]);
  });

  test("a live heap larger than the minimum may grow by its own size: reserved arenas do not count", () => {
    const { heap, pacing } = pacedHeap(100 * MiB);
    // 40 MiB of live objects beside 100 MiB of arenas.
    heap.size = heap.live = 140 * MiB;
    pacing.afterYoungCollection();
    heap.size = 180 * MiB;
    expect(pacing.afterYoungCollection()).toBe(false);
    heap.size++;
    expect([pacing.afterYoungCollection(), heap.collections]).toEqual([true, 1]);
  });

  test("reservations add up; with more reserved than heap, the minimum growth applies", () => {
    const { heap, pacing } = pacedHeap(100 * MiB);
    pacing.countReserved(100 * MiB);
    heap.size = heap.live = 140 * MiB;
    pacing.afterYoungCollection();
    heap.size = 140 * MiB + minimumGrowthBeforeFullCollection + 1;
    expect([pacing.afterYoungCollection(), heap.collections]).toEqual([true, 1]);
  });

  test("a heap smaller than the base (JavaScriptCore collected on its own) becomes the base", () => {
    const { heap, pacing } = pacedHeap(10 * MiB);
    heap.size = heap.live = 60 * MiB;
    pacing.afterYoungCollection();
    heap.size = 20 * MiB;
    expect(pacing.afterYoungCollection()).toBe(false);
    // Measured from 20 MiB now (10 MiB live): the minimum growth, not past it; from 60 MiB it
    // would have been 50 MiB.
    heap.size = 20 * MiB + minimumGrowthBeforeFullCollection;
    expect(pacing.afterYoungCollection()).toBe(false);
    heap.size++;
    expect([pacing.afterYoungCollection(), heap.collections]).toEqual([true, 1]);
  });

  test("the heap is looked at no more often than every heapLookIntervalMs", () => {
    const { heap, pacing } = pacedHeap(0);
    heap.autoAdvance = false;
    heap.size = heap.live = 10 * MiB;
    pacing.afterYoungCollection();
    expect(heap.looks).toBe(1);
    heap.size = 100 * MiB;
    heap.clock += heapLookIntervalMs - 1;
    expect([pacing.afterYoungCollection(), heap.looks, heap.collections]).toEqual([false, 1, 0]);
    heap.clock += 1;
    expect([pacing.afterYoungCollection(), heap.looks, heap.collections]).toEqual([true, 3, 1]);
  });

  test("after youngCollectionsPerHeapLook young collections the heap is looked at, however little time passed", () => {
    const { heap, pacing } = pacedHeap(0);
    heap.autoAdvance = false;
    heap.size = heap.live = 10 * MiB;
    pacing.afterYoungCollection();
    heap.size = 100 * MiB;
    for (let young = 1; young < youngCollectionsPerHeapLook; young++) {
      expect(pacing.afterYoungCollection()).toBe(false);
    }
    expect(heap.looks).toBe(1);
    expect([pacing.afterYoungCollection(), heap.collections]).toEqual([true, 1]);
  });

  test("the engine's collection counts young and full collections in its stats", () => {
    const stats = { youngCollections: 0, fullCollections: 0 };
    let fullNext = false;
    const collect = countedEdenCollection(stats, { afterYoungCollection: () => fullNext });
    collect();
    fullNext = true;
    collect();
    expect(stats).toEqual({ youngCollections: 2, fullCollections: 1 });
  });
});

describe("a flood of requests that wait off the worker, in a process of its own", () => {
  test("the heap's growth stays under 48 MiB: dead requests do not pile up in the old generation", async () => {
    const child = Bun.spawn(["bun", `${import.meta.dir}/support/awaiting-flood.ts`], {
      env: { ...process.env, SECONDS: "4" },
      stdout: "pipe",
      stderr: "inherit",
    });
    const [printed, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      child.exited,
    ]);
    expect(exitCode).toBe(0);
    const outcome = JSON.parse(printed) as {
      answered: number;
      peakGrowthBytes: number;
      fullCollections: number;
    };
    // Measured: 31 MiB of growth with 16 full collections in 4 s; without them (the engine's
    // young collections alone, as before), 59 MiB and climbing.
    expect(outcome.answered).toBeGreaterThan(10_000);
    expect(outcome.fullCollections).toBeGreaterThan(0);
    expect(outcome.peakGrowthBytes).toBeLessThan(48 * MiB);
  }, 20_000);
});
