import { describe, expect, test } from "bun:test";
import { EventRing } from "../../src/sse/event-ring.ts";
import { encodeGapEvent, gapEventName } from "../../src/sse/gap-event.ts";
import { parseLastEventId } from "../../src/sse/last-event-id.ts";
import { encodeServerSentEvent } from "../../src/sse/sse-encoder.ts";
import { readEventStream } from "./event-stream-parser.ts";

describe("encodeGapEvent", () => {
  test.each<[string, number, number, string]>([
    ["events 4..7 lost", 3, 8, 'event: gap\nid: 7\ndata: {"missedFrom":4,"resumedAt":8}\n\n'],
    ["from the start", 0, 5, 'event: gap\nid: 4\ndata: {"missedFrom":1,"resumedAt":5}\n\n'],
    [
      "after a restart, with events held",
      500,
      1,
      'event: gap\nid: 0\ndata: {"missedFrom":501,"resumedAt":1}\n\n',
    ],
    [
      "after a restart, holding 3..9",
      500,
      3,
      'event: gap\nid: 2\ndata: {"missedFrom":501,"resumedAt":3}\n\n',
    ],
  ])("%s", (_name, lastSeenId, resumedAtId, frame) => {
    expect(encodeGapEvent(lastSeenId, resumedAtId)).toBe(frame);
  });

  test("the event is named gap", () => {
    expect(gapEventName).toBe("gap");
  });

  test("ids are programmer input and are checked", () => {
    const bad: Array<[number, number]> = [
      [3, 4],
      [0, 1],
      [-1, 5],
      [1.5, 5],
      [1, 0],
      [1, 2.5],
      [Number.NaN, 5],
      [2 ** 53, 1],
    ];
    for (const [lastSeenId, resumedAtId] of bad) {
      expect(() => encodeGapEvent(lastSeenId, resumedAtId)).toThrow(TypeError);
    }
  });
});

describe("the gap convention end to end", () => {
  // One step of a stream as the App writes it: optional gap notice, then the events.
  function replay(ring: EventRing<string>, header: string | undefined): string {
    const lastSeenId = parseLastEventId(header) ?? ring.latestId;
    const { events, gap, nextId } = ring.readAfter(lastSeenId, 10);
    let text = gap ? encodeGapEvent(lastSeenId, events[0]?.id ?? nextId) : "";
    for (const { id, payload } of events) text += encodeServerSentEvent({ id, data: payload });
    return text;
  }

  function ringHolding8To10(): EventRing<string> {
    const ring = new EventRing<string>({ capacity: 3 });
    for (let index = 1; index <= 10; index++) ring.publish(`event ${index}`);
    return ring;
  }

  test("a client that fell behind is told, then gets what is held", () => {
    const stream = replay(ringHolding8To10(), "3");
    expect(readEventStream(stream, "3").events).toEqual([
      { type: "gap", data: '{"missedFrom":4,"resumedAt":8}', lastEventId: "7" },
      { type: "message", data: "event 8", lastEventId: "8" },
      { type: "message", data: "event 9", lastEventId: "9" },
      { type: "message", data: "event 10", lastEventId: "10" },
    ]);
  });

  test("a client cut off right after the notice resumes without a second notice", () => {
    const ring = ringHolding8To10();
    const gapOnly = encodeGapEvent(3, 8);
    // Read literally, §9.2.6 starts the buffer empty; the gap's own id keeps the place anyway.
    const { lastEventId } = readEventStream(gapOnly);
    expect(lastEventId).toBe("7");
    expect(
      readEventStream(replay(ring, lastEventId), lastEventId).events.map((e) => e.type),
    ).toEqual(["message", "message", "message"]);
  });

  test("a client with an id from before a restart is told, and moved to the new ids", () => {
    const ring = new EventRing<string>({ capacity: 3 });
    ring.publish("fresh 1");
    const { events, lastEventId } = readEventStream(replay(ring, "500"), "500");
    expect({ events, lastEventId }).toEqual({
      events: [
        { type: "gap", data: '{"missedFrom":501,"resumedAt":1}', lastEventId: "0" },
        { type: "message", data: "fresh 1", lastEventId: "1" },
      ],
      lastEventId: "1",
    });
  });

  test("after a restart with nothing published yet, the notice names the next id", () => {
    const ring = new EventRing<string>({ capacity: 3 });
    expect(replay(ring, "500")).toBe(
      'event: gap\nid: 0\ndata: {"missedFrom":501,"resumedAt":1}\n\n',
    );
  });

  test("a client without Last-Event-ID starts fresh, with no replay and no notice", () => {
    expect(replay(ringHolding8To10(), undefined)).toBe("");
  });
});
