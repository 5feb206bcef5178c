import { describe, expect, test } from "bun:test";
import type { WebSocketCallback, WebSocketHandler } from "../../src/websocket/websocket-host.ts";
import { fakeSession } from "../support/fake-transport.ts";
import { clientFrame } from "../support/websocket-frames.ts";

const text = new TextDecoder();

/** Frames as [opcode, text], close frames as [8, code]. */
function summary(frames: { opcode: number; payload: Uint8Array }[]) {
  return frames.map((frame) =>
    frame.opcode === 8
      ? [8, (frame.payload[0]! << 8) | frame.payload[1]!]
      : [frame.opcode, text.decode(frame.payload)],
  );
}

/**
 * A handler whose `failing` callback throws (`message` may also reject); `failed` records what
 * the engine told it, and throws itself when `failedThrows`.
 */
function failingHandler(
  failing: WebSocketCallback | "rejecting message",
  options: { failedThrows?: boolean; withFailed?: boolean } = {},
) {
  const reports: [WebSocketCallback, string][] = [];
  const closes: number[] = [];
  const handler: WebSocketHandler = {
    open() {
      if (failing === "open") throw new Error("open broke");
    },
    message(session) {
      if (failing === "message") throw new Error("message broke");
      if (failing === "rejecting message") return Promise.reject(new Error("message rejected"));
      session.send("x".repeat(500));
    },
    drain() {
      if (failing === "drain") throw new Error("drain broke");
    },
    close(_session, code) {
      closes.push(code);
      if (failing === "close") throw new Error("close broke");
    },
  };
  if (options.withFailed !== false) {
    handler.failed = (_session, error, callback) => {
      reports.push([callback, (error as Error).message]);
      if (options.failedThrows === true) throw new Error("the report broke too");
    };
  }
  return { handler, reports, closes };
}

describe("application callbacks that fail", () => {
  test("a throwing open is reported and the socket closed with 1011", () => {
    const { handler, reports } = failingHandler("open");
    const { session, transport, counters } = fakeSession(handler);
    expect(reports).toEqual([["open", "open broke"]]);
    expect(summary(transport.frames())).toEqual([[8, 1011]]);
    expect([session.open, counters.callbackFailures]).toEqual([false, 1]);
  });

  test("a throwing message is reported and closed with 1011, counted as handlerFailed", () => {
    const { handler, reports, closes } = failingHandler("message");
    const { session, transport, counters } = fakeSession(handler);
    session.onData(clientFrame(1, "hi"), true);
    expect(reports).toEqual([["message", "message broke"]]);
    expect(summary(transport.frames())).toEqual([[8, 1011]]);
    session.onClose();
    expect([closes, counters.closes.handlerFailed, counters.closes.normal]).toEqual([[1006], 1, 0]);
  });

  test("a message whose promise rejects is reported and closed with 1011", async () => {
    const { handler, reports } = failingHandler("rejecting message");
    const { session, transport, counters } = fakeSession(handler);
    session.onData(clientFrame(1, "hi"), true);
    await Bun.sleep(0);
    expect(reports).toEqual([["message", "message rejected"]]);
    expect(summary(transport.frames())).toEqual([[8, 1011]]);
    expect(counters.callbackFailures).toBe(1);
  });

  test("a throwing drain is reported and closed with 1011 after what was queued", () => {
    const { handler, reports } = failingHandler("drain");
    const { session, transport } = fakeSession(handler, { maxOutboundBytes: 100_000 });
    transport.window = 0;
    session.onData(clientFrame(1, "one"), true);
    session.onData(clientFrame(1, "two"), true);
    expect(session.bufferedBytes).toBeGreaterThan(0);
    transport.window = Number.POSITIVE_INFINITY;
    session.onDrain();
    expect(reports).toEqual([["drain", "drain broke"]]);
    expect(summary(transport.frames())).toEqual([
      [1, "x".repeat(500)],
      [1, "x".repeat(500)],
      [8, 1011],
    ]);
  });

  test("a throwing close is reported once and never thrown on to the connection", () => {
    const { handler, reports, closes } = failingHandler("close");
    const { session, transport, counters } = fakeSession(handler);
    expect(() => session.onClose()).not.toThrow();
    session.onClose();
    expect([reports, closes, transport.frames()]).toEqual([[["close", "close broke"]], [1006], []]);
    expect([counters.callbackFailures, counters.closes.abnormal, counters.open]).toEqual([1, 1, 0]);
  });

  test("a report that throws itself is ignored: the socket still closes with 1011", () => {
    const { handler, reports } = failingHandler("open", { failedThrows: true });
    const { transport, counters } = fakeSession(handler);
    expect([reports, summary(transport.frames()), counters.callbackFailures]).toEqual([
      [["open", "open broke"]],
      [[8, 1011]],
      1,
    ]);
  });

  test("without a failed hook the failure is still counted and closed with 1011", () => {
    const { handler } = failingHandler("message", { withFailed: false });
    const { session, transport, counters } = fakeSession(handler);
    session.onData(clientFrame(1, "hi"), true);
    expect([summary(transport.frames()), counters.callbackFailures]).toEqual([[[8, 1011]], 1]);
  });
});
