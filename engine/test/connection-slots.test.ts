// The connection slots are made with the engine: each slot's memory is its own share of the
// arenas, and its objects are few (they are made for every slot, used or not).

import { heapStats } from "bun:jsc";
import { expect, test } from "bun:test";
import { ArenaReservation } from "../src/internal/arena-reservation.ts";
import {
  hotHeaderFields,
  SlotArenas,
  slotReservedBytes,
} from "../src/internal/connection-parts.ts";
import { ConnectionSlots } from "../src/internal/connection-slots.ts";
import type { EngineContext } from "../src/internal/engine-context.ts";
import { admissionHeadLimits } from "../src/internal/request-admission.ts";
import { WorkerScheduler } from "../src/internal/worker-scheduler.ts";
import { resolveLimits } from "../src/limits.ts";
import { ParsedHead } from "../src/parser/parsed-head.ts";
import { StatsCounters } from "../src/stats.ts";

/** A slot table as an engine whose App streams some bodies makes it. */
function slotTable(maxConnections: number): ConnectionSlots {
  const limits = resolveLimits({ maxConnections });
  const stats = new StatsCounters();
  const context = {
    limits,
    stats,
    streamBodies: () => false,
    headLimits: admissionHeadLimits(limits, { streamBodies: () => false }),
    scheduler: new WorkerScheduler(limits, stats, () => {}),
  } as unknown as EngineContext;
  return new ConnectionSlots(limits, context, new ArenaReservation(slotReservedBytes(limits)));
}

const liveObjects = () => {
  Bun.gc(true);
  return heapStats().objectCount;
};

test("every slot is made with the table, its lease listed by slot, each visited once", () => {
  const slots = slotTable(8);
  expect(slots.bySlot).toHaveLength(8);
  expect(slots.bySlot.map((connection) => connection.slot)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  expect(slots.leases).toEqual(slots.bySlot.map((connection) => connection.lease));
  expect([...slots]).toEqual([...slots.bySlot]);
});

test("a slot costs at most 28 heap objects (38 when each slot copied the head limits and made its own callbacks and empty arrays)", () => {
  const before = liveObjects();
  const slots = slotTable(4096);
  const perSlot = (liveObjects() - before) / 4096;
  expect(slots.bySlot).toHaveLength(4096);
  expect(perSlot).toBeGreaterThan(20);
  expect(perSlot).toBeLessThan(29);
});

test("the head limits are shared, and the limits themselves when no body streams", () => {
  const limits = resolveLimits({});
  expect(admissionHeadLimits(limits, {})).toBe(limits);
  expect(admissionHeadLimits(limits, { streamBodies: null })).toBe(limits);
  const streamed = admissionHeadLimits(limits, { streamBodies: () => true });
  expect(streamed.maxBodyBytes).toBe(Math.max(limits.maxBodyBytes, limits.maxStreamedBodyBytes));
  const oversized = admissionHeadLimits(limits, { dispatchOversizedBodies: true });
  expect(oversized.maxBodyBytes).toBe(Number.MAX_SAFE_INTEGER);
});

test("each slot's head and output buffers and header offsets are its own share of the arenas", () => {
  const limits = resolveLimits({ maxConnections: 3 });
  const arenas = new SlotArenas(limits, new ArenaReservation(slotReservedBytes(limits)));
  const memories = [0, 1, 2].map((slot) => arenas.memoryOf(slot));
  for (const memory of memories) {
    expect(memory.head.length).toBe(limits.maxHeaderBytes);
    expect(memory.output.length).toBe(limits.connectionOutputBytes);
    expect(memory.hotOffsets.length).toBe(hotHeaderFields * 4);
    expect(memory.hotOffsets.length + memory.coldOffsets.length).toBe(limits.maxHeaderCount * 4);
  }
  const ranges = memories.flatMap((memory) =>
    [memory.head, memory.output, memory.hotOffsets, memory.coldOffsets].map((view) => ({
      buffer: view.buffer,
      start: view.byteOffset,
      end: view.byteOffset + view.byteLength,
    })),
  );
  for (const [index, range] of ranges.entries()) {
    for (const other of ranges.slice(index + 1)) {
      if (other.buffer !== range.buffer) continue;
      expect(other.start >= range.end || other.end <= range.start).toBe(true);
    }
  }
  // The first fields of neighbouring slots are neighbours: a short head touches 512 bytes.
  expect(memories[1]!.hotOffsets.byteOffset - memories[0]!.hotOffsets.byteOffset).toBe(
    hotHeaderFields * 16,
  );
  // Asked again, a slot gets views of the same bytes.
  expect(arenas.memoryOf(1).head.byteOffset).toBe(memories[1]!.head.byteOffset);
});

test("with maxHeaderCount under the hot fields, every field is hot and nothing is cold", () => {
  const limits = resolveLimits({ maxConnections: 2, maxHeaderCount: 8 });
  const memory = new SlotArenas(limits, new ArenaReservation(slotReservedBytes(limits))).memoryOf(
    1,
  );
  expect(memory.hotOffsets.length).toBe(32);
  expect(memory.coldOffsets.length).toBe(0);
});

test("a parsed head keeps its first fields in the hot offsets and the rest in the cold ones", () => {
  const hot = new Uint32Array(2 * 4);
  const cold = new Uint32Array(3 * 4);
  const head = new ParsedHead(5, hot, cold);
  for (let index = 0; index < 5; index++) {
    head.setField(index, index * 10, index * 10 + 1, index * 10 + 2, index * 10 + 3);
  }
  expect([...hot]).toEqual([0, 1, 2, 3, 10, 11, 12, 13]);
  expect([...cold]).toEqual([20, 21, 22, 23, 30, 31, 32, 33, 40, 41, 42, 43]);
  for (let index = 0; index < 5; index++) {
    expect([0, 1, 2, 3].map((part) => head.fieldOffset(index, part))).toEqual(
      [0, 1, 2, 3].map((part) => index * 10 + part),
    );
  }
  expect(() => new ParsedHead(5, hot, new Uint32Array(8))).toThrow(RangeError);
});
