import { describe, expect, test } from "bun:test";
import { EventRing } from "../../src/sse/event-ring.ts";

function filledRing(capacity: number, publishes: number): EventRing<string> {
  const ring = new EventRing<string>({ capacity });
  for (let index = 1; index <= publishes; index++) ring.publish(`event ${index}`);
  return ring;
}

function idsOf(read: { events: Array<{ id: number }> }): number[] {
  return read.events.map((event) => event.id);
}

describe("EventRing construction", () => {
  test("capacity must be an integer >= 1", () => {
    const bad = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "3" as unknown as number];
    for (const capacity of bad) {
      expect(() => new EventRing({ capacity })).toThrow(TypeError);
    }
    expect(new EventRing({ capacity: 1 }).capacity).toBe(1);
  });

  test("an empty ring holds nothing and resumes at id 1", () => {
    const ring = new EventRing<string>({ capacity: 3 });
    expect({
      latestId: ring.latestId,
      oldestId: ring.oldestId,
      size: ring.size,
      fromStart: ring.readAfter(0, 10),
      fromFuture: ring.readAfter(5, 10),
    }).toEqual({
      latestId: 0,
      oldestId: 1,
      size: 0,
      fromStart: { events: [], gap: false, nextId: 1 },
      fromFuture: { events: [], gap: true, nextId: 1 },
    });
  });
});

describe("EventRing publishing", () => {
  test("capacity 3 over 10 publishes keeps the last 3 and numbers from 1", () => {
    const ring = new EventRing<string>({ capacity: 3 });
    const steps = [];
    for (let index = 1; index <= 10; index++) {
      const id = ring.publish(`event ${index}`);
      const held = ring.readAfter(ring.oldestId - 1, 10);
      steps.push({
        id,
        latestId: ring.latestId,
        oldestId: ring.oldestId,
        size: ring.size,
        held: held.events.map((event) => `${event.id}=${event.payload}`),
      });
    }
    expect(steps).toEqual([
      { id: 1, latestId: 1, oldestId: 1, size: 1, held: ["1=event 1"] },
      { id: 2, latestId: 2, oldestId: 1, size: 2, held: ["1=event 1", "2=event 2"] },
      { id: 3, latestId: 3, oldestId: 1, size: 3, held: ["1=event 1", "2=event 2", "3=event 3"] },
      { id: 4, latestId: 4, oldestId: 2, size: 3, held: ["2=event 2", "3=event 3", "4=event 4"] },
      { id: 5, latestId: 5, oldestId: 3, size: 3, held: ["3=event 3", "4=event 4", "5=event 5"] },
      { id: 6, latestId: 6, oldestId: 4, size: 3, held: ["4=event 4", "5=event 5", "6=event 6"] },
      { id: 7, latestId: 7, oldestId: 5, size: 3, held: ["5=event 5", "6=event 6", "7=event 7"] },
      { id: 8, latestId: 8, oldestId: 6, size: 3, held: ["6=event 6", "7=event 7", "8=event 8"] },
      { id: 9, latestId: 9, oldestId: 7, size: 3, held: ["7=event 7", "8=event 8", "9=event 9"] },
      {
        id: 10,
        latestId: 10,
        oldestId: 8,
        size: 3,
        held: ["8=event 8", "9=event 9", "10=event 10"],
      },
    ]);
  });

  test("payloads come back as the same references, undefined included", () => {
    const ring = new EventRing<{ n: number } | undefined>({ capacity: 2 });
    const first = { n: 1 };
    ring.publish(first);
    ring.publish(undefined);
    const { events } = ring.readAfter(0, 10);
    expect(events[0]?.payload).toBe(first);
    expect(events).toEqual([
      { id: 1, payload: first },
      { id: 2, payload: undefined },
    ]);
  });

  test("capacity 1 holds only the latest", () => {
    const ring = filledRing(1, 4);
    expect({ oldestId: ring.oldestId, read: ring.readAfter(3, 10) }).toEqual({
      oldestId: 4,
      read: { events: [{ id: 4, payload: "event 4" }], gap: false, nextId: 5 },
    });
    expect(ring.readAfter(2, 10).gap).toBe(true);
  });
});

describe("EventRing.readAfter boundaries (capacity 3, 10 published, holding 8..10)", () => {
  const ring = filledRing(3, 10);
  test.each<[string, number, number[], boolean, number]>([
    ["0: everything before was lost", 0, [8, 9, 10], true, 11],
    ["far past", 1, [8, 9, 10], true, 11],
    ["oldest - 2: event 7 was lost", 6, [8, 9, 10], true, 11],
    ["oldest - 1: exactly resumable", 7, [8, 9, 10], false, 11],
    ["oldest", 8, [9, 10], false, 11],
    ["latest - 1", 9, [10], false, 11],
    ["latest: caught up", 10, [], false, 11],
    ["latest + 1: an id from the future", 11, [8, 9, 10], true, 11],
    ["far future, e.g. after a restart", 1_000_000, [8, 9, 10], true, 11],
  ])("%s", (_name, lastSeenId, ids, gap, nextId) => {
    const read = ring.readAfter(lastSeenId, 10);
    expect({ ids: idsOf(read), gap: read.gap, nextId: read.nextId }).toEqual({ ids, gap, nextId });
  });

  test("payloads match their ids", () => {
    expect(ring.readAfter(7, 10).events).toEqual([
      { id: 8, payload: "event 8" },
      { id: 9, payload: "event 9" },
      { id: 10, payload: "event 10" },
    ]);
  });
});

describe("EventRing.readAfter paging", () => {
  test("maxEvents pages through what is held; only the first page reports the gap", () => {
    const ring = filledRing(5, 7);
    const pages = [];
    let lastSeenId = 0;
    for (;;) {
      const read = ring.readAfter(lastSeenId, 2);
      pages.push({ ids: idsOf(read), gap: read.gap, nextId: read.nextId });
      if (read.events.length === 0) break;
      lastSeenId = read.nextId - 1;
    }
    expect(pages).toEqual([
      { ids: [3, 4], gap: true, nextId: 5 },
      { ids: [5, 6], gap: false, nextId: 7 },
      { ids: [7], gap: false, nextId: 8 },
      { ids: [], gap: false, nextId: 8 },
    ]);
  });

  test("maxEvents 1 returns one event at a time", () => {
    const ring = filledRing(3, 3);
    expect(idsOf(ring.readAfter(0, 1))).toEqual([1]);
    expect(ring.readAfter(0, 1).nextId).toBe(2);
  });

  test("a reader overtaken by publishing sees a gap mid-stream", () => {
    const ring = filledRing(3, 3);
    const first = ring.readAfter(0, 2);
    for (let index = 4; index <= 8; index++) ring.publish(`event ${index}`);
    const second = ring.readAfter(first.nextId - 1, 2);
    expect([first, second].map((read) => ({ ids: idsOf(read), gap: read.gap }))).toEqual([
      { ids: [1, 2], gap: false },
      { ids: [6, 7], gap: true },
    ]);
  });

  test("arguments are programmer input and are checked", () => {
    const ring = filledRing(3, 3);
    for (const lastSeenId of [-1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => ring.readAfter(lastSeenId, 1)).toThrow(TypeError);
    }
    for (const maxEvents of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => ring.readAfter(0, maxEvents)).toThrow(TypeError);
    }
  });
});
