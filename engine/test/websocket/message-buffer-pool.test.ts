import { expect, test } from "bun:test";
import {
  MessageBufferPool,
  type MessageBufferWaiter,
} from "../../src/websocket/message-buffer-pool.ts";
import { WebSocketCounters } from "../../src/websocket/websocket-stats.ts";
import { fakeSession } from "../support/fake-transport.ts";
import { clientFrame } from "../support/websocket-frames.ts";

/** A holder that records what the pool did to it; `handling` ones refuse to give back. */
function holder(name: string, events: string[], handling = false) {
  const self: MessageBufferWaiter & { buffer: Uint8Array | null } = {
    buffer: null,
    bufferGranted(buffer) {
      self.buffer = buffer;
      events.push(`${name} granted`);
    },
    bufferReclaimed() {
      if (handling) return false;
      events.push(`${name} reclaimed`);
      pool.give(self.buffer!);
      self.buffer = null;
      return true;
    },
  };
  return self;
}

const clock = { now: 0 };
let pool: MessageBufferPool;

test("reclaim: only while a message waits, only holders of holdMs or more, the longest first, one per waiter", () => {
  const events: string[] = [];
  pool = new MessageBufferPool(2, 64, new WebSocketCounters(), () => clock.now);
  clock.now = 1000;
  const first = holder("first", events);
  first.buffer = pool.take(first)!;
  clock.now = 1100;
  const second = holder("second", events);
  second.buffer = pool.take(second)!;
  clock.now = 5000;
  pool.reclaim(clock.now, 500);
  expect(events).toEqual([]);
  const waiter = holder("waiter", events);
  expect(pool.take(waiter)).toBeUndefined();
  pool.wait(waiter);
  clock.now = 1499;
  pool.reclaim(clock.now, 500);
  expect(events).toEqual([]);
  clock.now = 1500;
  pool.reclaim(clock.now, 500);
  expect(events).toEqual(["first reclaimed", "waiter granted"]);
  // The waiter's hold starts now: not reclaimed with the second one's.
  const late = holder("late", events);
  pool.wait(late);
  clock.now = 1600;
  pool.reclaim(clock.now, 500);
  expect(events.slice(2)).toEqual(["second reclaimed", "late granted"]);
});

test("reclaim skips a holder whose message is being handled and takes the next", () => {
  const events: string[] = [];
  pool = new MessageBufferPool(2, 64, new WebSocketCounters(), () => clock.now);
  clock.now = 0;
  const busy = holder("busy", events, true);
  busy.buffer = pool.take(busy)!;
  const stalled = holder("stalled", events);
  stalled.buffer = pool.take(stalled)!;
  pool.wait(holder("waiter", events));
  clock.now = 1000;
  pool.reclaim(clock.now, 1000);
  expect(events).toEqual(["stalled reclaimed", "waiter granted"]);
});

test("a session whose message is still arriving gives its buffer back with a close 1013", () => {
  const received: number[] = [];
  const handler = {
    message: (_session: unknown, data: Uint8Array) => void received.push(data.length),
    close() {},
  };
  const {
    session,
    transport,
    counters,
    pool: sessionPool,
  } = fakeSession(handler, {
    maxMessageBytes: 4096,
    maxFrameBytes: 4096,
  });
  const frame = clientFrame(2, new Uint8Array(1000));
  // More than the fake session's 64-byte small buffer: a pool buffer is taken.
  session.onData(frame.subarray(0, 500), true);
  expect(counters.messageBuffersInUse).toBe(1);
  const events: string[] = [];
  sessionPool.wait(holder("waiter", events));
  sessionPool.reclaim(1000, 1000);
  expect(events).toEqual(["waiter granted"]);
  const [close] = transport.frames();
  expect([close!.opcode, (close!.payload[0]! << 8) | close!.payload[1]!]).toEqual([8, 1013]);
  expect(new TextDecoder().decode(close!.payload.subarray(2))).toBe("message buffer reclaimed");
  expect(transport.ended).toBe(true);
  session.onData(frame.subarray(500), true);
  session.onClose();
  expect([received, counters.closes.bufferReclaimed]).toEqual([[], 1]);
});
