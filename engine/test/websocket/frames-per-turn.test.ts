import { expect, test } from "bun:test";
import { framesPerTurn } from "../../src/websocket/inbound-reader.ts";
import type { WebSocketHandler } from "../../src/websocket/websocket-host.ts";
import { fakeSession } from "../support/fake-transport.ts";
import { clientFrame, concatBytes } from "../support/websocket-frames.ts";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("a socket handles 64 frames a turn, reads paused until the rest is handled, in order", async () => {
  const received: string[] = [];
  const handler: WebSocketHandler = {
    message: (_session, data) => void received.push(Buffer.from(data).toString()),
    close() {},
  };
  const { session, transport } = fakeSession(handler);
  const frames = Array.from({ length: 150 }, (_, index) => clientFrame(1, String(index)));
  frames.splice(100, 0, clientFrame(9, "ping"));
  session.onData(concatBytes(...frames), true);
  expect(framesPerTurn).toBe(64);
  expect([received.length, transport.paused]).toEqual([64, true]);
  await nextTurn();
  // Frames 64 to 99, the ping, then 27 more: 64 frames in the second turn.
  expect([received.length, transport.paused]).toEqual([127, true]);
  await nextTurn();
  expect([received.length, transport.paused]).toEqual([150, false]);
  expect(received).toEqual(Array.from({ length: 150 }, (_, index) => String(index)));
  expect(transport.frames().filter((frame) => frame.opcode === 10)).toHaveLength(1);
});

test("a socket closed while its rest waits for the next turn handles nothing more", async () => {
  const received: string[] = [];
  const handler: WebSocketHandler = {
    message: (_session, data) => void received.push(Buffer.from(data).toString()),
    close() {},
  };
  const { session } = fakeSession(handler);
  const frames = Array.from({ length: 100 }, (_, index) => clientFrame(1, String(index)));
  session.onData(concatBytes(...frames), true);
  session.onClose();
  await nextTurn();
  expect(received).toHaveLength(64);
});
