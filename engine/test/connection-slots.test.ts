// A connection slot's objects (its connection, parser state, lease, ...) are made when a socket
// first takes the slot and reused by every later socket; only the slot's memory is reserved with
// the engine.

import { heapStats } from "bun:jsc";
import { expect, test } from "bun:test";
import { ArenaReservation } from "../src/internal/arena-reservation.ts";
import { SlotArenas, slotReservedBytes } from "../src/internal/connection-parts.ts";
import { ConnectionSlots } from "../src/internal/connection-slots.ts";
import type { EngineContext } from "../src/internal/engine-context.ts";
import { WorkerScheduler } from "../src/internal/worker-scheduler.ts";
import { resolveLimits } from "../src/limits.ts";
import { StatsCounters } from "../src/stats.ts";
import { RawClient } from "./support/raw-client.ts";
import { startServer } from "./support/test-server.ts";

const liveObjects = () => {
  Bun.gc(true);
  return heapStats().objectCount;
};

test("4,096 connection slots cost no heap objects until sockets take them", async () => {
  const before = liveObjects();
  await using server = startServer((exchange) => exchange.writeText("ok"), {
    maxConnections: 4096,
  });
  const listening = liveObjects();
  // Made at start, every slot's objects came to about 40 per slot (154,000 here).
  expect(listening - before).toBeLessThan(4096);
  const clients = await Promise.all([0, 1, 2].map(() => RawClient.connect(server.port)));
  for (const client of clients) client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  for (const answer of await Promise.all(clients.map((client) => client.response()))) {
    expect(answer.status).toBe(200);
    expect(answer.text).toBe("ok");
  }
  for (const client of clients) client.end();
});

function slotTable(maxConnections: number): ConnectionSlots {
  const limits = resolveLimits({ maxConnections });
  const stats = new StatsCounters();
  const context = {
    limits,
    stats,
    scheduler: new WorkerScheduler(limits, stats, () => {}),
  } as unknown as EngineContext;
  const arenas = new ArenaReservation(slotReservedBytes(limits));
  return new ConnectionSlots(limits, context, arenas);
}

test("a slot's connection is made on its first take and the same one is handed out after", () => {
  const slots = slotTable(8);
  expect(slots.made).toBe(0);
  expect([...slots]).toEqual([]);
  expect(slots.bySlot).toHaveLength(8);
  expect(slots.bySlot.every((connection) => connection === undefined)).toBe(true);

  const third = slots.take(3);
  expect(third.slot).toBe(3);
  expect(slots.made).toBe(1);
  expect(slots.bySlot[3]).toBe(third);
  expect(slots.leases[3]).toBe(third.lease);
  expect(slots.take(3)).toBe(third);
  expect(slots.made).toBe(1);

  const first = slots.take(0);
  expect(slots.made).toBe(2);
  expect([...slots]).toEqual([third, first]);
  expect(slots.bySlot.filter((connection) => connection !== undefined)).toHaveLength(2);
});

test("each slot's head and output buffers and header offsets are its own share of the arenas", () => {
  const limits = resolveLimits({ maxConnections: 3 });
  const arenas = new SlotArenas(limits, new ArenaReservation(slotReservedBytes(limits)));
  const memories = [0, 1, 2].map((slot) => arenas.memoryOf(slot));
  for (const memory of memories) {
    expect(memory.head.length).toBe(limits.maxHeaderBytes);
    expect(memory.output.length).toBe(limits.connectionOutputBytes);
    expect(memory.headerOffsets.length).toBe(limits.maxHeaderCount * 4);
  }
  const ranges = memories.flatMap((memory) =>
    [memory.head, memory.output, memory.headerOffsets].map((view) => ({
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
  // Asked again, a slot gets views of the same bytes.
  expect(arenas.memoryOf(1).head.byteOffset).toBe(memories[1]!.head.byteOffset);
});
