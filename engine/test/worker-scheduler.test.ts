import { expect, test } from "bun:test";
import fc from "fast-check";
import { FairQueue } from "../src/internal/fair-queue.ts";
import { ResponseDraft } from "../src/internal/response-draft.ts";
import { WorkerLease } from "../src/internal/worker-lease.ts";
import { WorkerScheduler } from "../src/internal/worker-scheduler.ts";
import { defaultLimits, resolveLimits } from "../src/limits.ts";
import { StatsCounters } from "../src/stats.ts";

const flush = () => new Promise<void>((resolve) => queueMicrotask(resolve));

function rig(workers: number, maxQueuedRequests = 64) {
  const limits = resolveLimits({
    ...defaultLimits,
    workers,
    maxQueuedRequests,
    maxConnections: 32,
  });
  const stats = new StatsCounters();
  const scheduler = new WorkerScheduler(limits, stats, () => {});
  const granted: number[] = [];
  const displaced: number[] = [];
  const leases = Array.from(
    { length: limits.maxConnections },
    (_, slot) =>
      new WorkerLease(
        slot,
        {
          draft: new ResponseDraft(limits, stats),
          workerGranted: () => granted.push(slot),
          requestDisplaced: () => displaced.push(slot),
        },
        scheduler,
      ),
  );
  scheduler.attach(leases);
  return { scheduler, stats, leases, granted, displaced };
}

test("a freed worker goes to the waiting key holding the fewest workers, the oldest first among equals", async () => {
  const { leases, granted, stats } = rig(4);
  // Key 1 holds all four workers; then key 1, key 2, key 3, key 2 wait, in that order.
  for (const slot of [0, 1, 2, 3]) leases[slot]!.request(1);
  leases[4]!.request(1);
  leases[5]!.request(2);
  leases[6]!.request(3);
  leases[7]!.request(2);
  for (const slot of [0, 1, 2, 3]) {
    leases[slot]!.release();
    await flush();
  }
  // Keys 2 and 3 hold none: key 2's first waiter came first. Then key 3 (none held). Then keys 1
  // and 2 hold one each: key 1's waiter came first. Two grants went ahead of an older waiter.
  expect({ granted, fairDispatches: stats.fairDispatches }).toEqual({
    granted: [5, 6, 4, 7],
    fairDispatches: 2,
  });
});

test("with one key the queue is first come, first served", async () => {
  const { leases, granted, stats } = rig(1);
  for (let slot = 0; slot < 6; slot++) leases[slot]!.request(9);
  for (let slot = 0; slot < 5; slot++) {
    leases[slot]!.release();
    await flush();
  }
  expect({ granted, fairDispatches: stats.fairDispatches }).toEqual({
    granted: [1, 2, 3, 4, 5],
    fairDispatches: 0,
  });
});

test("a full queue gives the newest place of the longest key to a key with fewer waiters", async () => {
  const { leases, displaced, stats } = rig(1, 3);
  leases[0]!.request(1);
  expect([1, 2, 3].map((slot) => leases[slot]!.request(1))).toEqual(["queued", "queued", "queued"]);
  // Key 2 has no waiter; key 1 has three: the newest of key 1 gives way.
  expect(leases[4]!.request(2)).toBe("queued");
  // Key 2 now has one waiter, key 1 two: 2 > 1 + 1 is false, so a second key-2 request is refused.
  expect(leases[5]!.request(2)).toBe("none");
  await flush();
  expect({
    displaced,
    states: leases.slice(0, 6).map((lease) => lease.state),
    queueDisplacements: stats.queueDisplacements,
    queuedRequests: stats.queuedRequests,
  }).toEqual({
    displaced: [3],
    states: ["held", "queued", "queued", "none", "queued", "none"],
    queueDisplacements: 1,
    queuedRequests: 3,
  });
});

test("FairQueue: any sequence of pushes, removals and held changes shifts in the fair order", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          fc.record({ op: fc.constant("push" as const), key: fc.integer({ min: 0, max: 5 }) }),
          fc.record({ op: fc.constant("remove" as const), pick: fc.nat() }),
          fc.record({
            op: fc.constant("held" as const),
            key: fc.integer({ min: 0, max: 5 }),
            delta: fc.integer({ min: -1, max: 1 }),
          }),
          fc.record({ op: fc.constant("shift" as const) }),
        ),
        { maxLength: 200 },
      ),
      (operations) => {
        const held = new Int32Array(8);
        const queue = new FairQueue(64, held);
        const model: { slot: number; key: number; arrival: number }[] = [];
        let arrival = 0;
        let nextSlot = 0;
        for (const operation of operations) {
          if (operation.op === "push" && nextSlot < 64) {
            queue.push(nextSlot, operation.key, arrival);
            model.push({ slot: nextSlot++, key: operation.key, arrival: arrival++ });
          } else if (operation.op === "remove" && model.length > 0) {
            const [gone] = model.splice(operation.pick % model.length, 1);
            queue.remove(gone!.slot);
          } else if (operation.op === "held") {
            held[operation.key] = Math.max(0, held[operation.key]! + operation.delta);
            queue.heldChanged(operation.key);
          } else if (operation.op === "shift") {
            const expected = fairest(model, held);
            expect(queue.shift()).toBe(expected === undefined ? -1 : expected.slot);
            if (expected !== undefined) model.splice(model.indexOf(expected), 1);
          }
          expect(queue.length).toBe(model.length);
        }
      },
    ),
    { seed: 19, numRuns: 300 },
  );
});

function fairest(
  model: readonly { slot: number; key: number; arrival: number }[],
  held: Int32Array,
) {
  let best: (typeof model)[number] | undefined;
  for (const entry of model) {
    if (
      best === undefined ||
      held[entry.key]! < held[best.key]! ||
      (held[entry.key] === held[best.key] && entry.arrival < best.arrival)
    ) {
      best = entry;
    }
  }
  return best;
}
