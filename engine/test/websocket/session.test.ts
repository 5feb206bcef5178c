import { describe, expect, test } from "bun:test";
import { EncodedMessage } from "../../src/websocket/encoded-message.ts";
import type { WebSocketHandler } from "../../src/websocket/websocket-host.ts";
import { fakeSession } from "../support/fake-transport.ts";
import { clientFrame, closePayload, concatBytes } from "../support/websocket-frames.ts";

function recorder(reply?: (data: Uint8Array, isText: boolean) => string | Uint8Array) {
  const events: unknown[] = [];
  const handler: WebSocketHandler = {
    message(session, data, isText) {
      events.push({ message: Buffer.from(data).toString(), isText });
      if (reply !== undefined) session.send(reply(data, isText));
    },
    close(_session, code, reason) {
      events.push({ close: code, reason });
    },
    drain() {
      events.push("drain");
    },
  };
  return { events, handler };
}

const text = new TextDecoder();
/** Frames as [opcode, text], close frames as [8, code, reason]. */
function summary(frames: { opcode: number; payload: Uint8Array }[]) {
  return frames.map((frame) =>
    frame.opcode === 8
      ? [8, (frame.payload[0]! << 8) | frame.payload[1]!, text.decode(frame.payload.subarray(2))]
      : [frame.opcode, text.decode(frame.payload)],
  );
}

describe("WebSocketSession", () => {
  test("echoes messages whole, in place and assembled across chunks and fragments", () => {
    const { events, handler } = recorder((data, isText) =>
      isText ? text.decode(data) : data.slice(),
    );
    const { session, transport } = fakeSession(handler);
    const bytes = concatBytes(
      clientFrame(1, "one"),
      clientFrame(2, "t", { final: false }),
      clientFrame(0, "wo"),
      clientFrame(1, "x".repeat(100)),
    );
    session.onData(bytes.slice(0, 9), true);
    session.onData(bytes.slice(9), true);
    expect(events).toEqual([
      { message: "one", isText: true },
      { message: "two", isText: false },
      { message: "x".repeat(100), isText: true },
    ]);
    expect(summary(transport.frames())).toEqual([
      [1, "one"],
      [2, "two"],
      [1, "x".repeat(100)],
    ]);
  });

  test("answers a ping with its payload, and a close with the same code, then ends TCP", () => {
    const { events, handler } = recorder();
    const { session, transport, counters } = fakeSession(handler);
    session.onData(
      concatBytes(clientFrame(9, "hi"), clientFrame(8, closePayload(4000, "bye"))),
      true,
    );
    expect(summary(transport.frames())).toEqual([
      [10, "hi"],
      [8, 4000, ""],
    ]);
    expect(transport.ended).toBe(true);
    session.onClose();
    session.onClose();
    expect(events).toEqual([{ close: 4000, reason: "bye" }]);
    expect(counters.closes.normal).toBe(1);
    expect(counters.open).toBe(0);
  });

  test("pauses reads while an async message handler runs; the next message waits for it", async () => {
    const order: string[] = [];
    let finish: () => void = () => {};
    const { session, transport } = fakeSession({
      async message(_session, data) {
        order.push(Buffer.from(data).toString());
        if (order.length > 1) return;
        await new Promise<void>((resolve) => (finish = resolve));
        // The message is still this handler's: what came meanwhile has not overwritten it.
        order.push(`${Buffer.from(data).toString()} again`);
      },
      close() {},
    });
    session.onData(concatBytes(clientFrame(1, "a"), clientFrame(1, "b")), true);
    session.onData(clientFrame(1, "c"), true);
    expect([order, transport.paused]).toEqual([["a"], true]);
    finish();
    await Bun.sleep(0);
    expect([order, transport.paused]).toEqual([["a", "a again", "b", "c"], false]);
  });

  test("protocol errors send their close code and end the connection", () => {
    const { events, handler } = recorder();
    const { session, transport, counters } = fakeSession(handler);
    session.onData(clientFrame(1, "x", { masked: false }), true);
    expect(summary(transport.frames())).toEqual([[8, 1002, "unmasked frame"]]);
    expect(transport.ended).toBe(true);
    session.onClose();
    expect(events).toEqual([{ close: 1006, reason: "" }]);
    expect(counters.closes.protocolError).toBe(1);
  });

  test("at the outbound cap: refused and dropped under 'drop'; closed with 1008 under 'close'", () => {
    for (const policy of ["drop", "close"] as const) {
      const { handler } = recorder();
      const { session, transport, counters, flush } = fakeSession(handler, {
        maxOutboundBytes: 1024,
        outboundPolicy: policy,
      });
      transport.window = 0;
      const payload = new Uint8Array(500);
      expect([session.send(payload), session.send(payload), session.send(payload)]).toEqual([
        "queued",
        "queued",
        "refused",
      ]);
      flush();
      expect([counters.sendsRefused, counters.sendsDropped, session.open]).toEqual(
        policy === "drop" ? [1, 1, true] : [1, 0, false],
      );
    }
  });

  test("a pong is written ahead of queued data, at the next frame boundary", () => {
    const { handler } = recorder();
    const { session, transport, flush } = fakeSession(handler, { maxOutboundBytes: 100_000 });
    transport.window = 10;
    session.send(new Uint8Array(1000));
    session.send(new Uint8Array(1000));
    flush();
    transport.window = Number.POSITIVE_INFINITY;
    session.onData(clientFrame(9, "p"), true);
    expect(transport.frames().map((frame) => frame.opcode)).toEqual([2, 10, 2]);
  });

  test("pings from a client that does not read: a newer pong replaces the unsent one", () => {
    const { handler } = recorder();
    const { session, transport } = fakeSession(handler);
    transport.window = 0;
    session.onData(
      concatBytes(clientFrame(9, "1"), clientFrame(9, "2"), clientFrame(9, "3")),
      true,
    );
    transport.window = Number.POSITIVE_INFINITY;
    session.onDrain();
    expect(summary(transport.frames())).toEqual([
      [10, "1"],
      [10, "3"],
    ]);
  });

  test("pings a quiet peer, drops it when the pong does not come", () => {
    const { events, handler } = recorder();
    const { session, transport, clock, counters } = fakeSession(handler, {
      pingIntervalMs: 100,
      pongTimeoutMs: 50,
      idleTimeoutMs: 0,
    });
    clock.now = 100;
    session.checkDeadlines(100);
    expect(transport.frames().map((frame) => frame.opcode)).toEqual([9]);
    session.checkDeadlines(149);
    expect(transport.terminated).toBe(false);
    session.checkDeadlines(150);
    expect(transport.terminated).toBe(true);
    session.onClose();
    expect([events, counters.closes.pongTimeout, counters.pingsSent]).toEqual([
      [{ close: 1006, reason: "" }],
      1,
      1,
    ]);
  });

  test("a message outgrowing the small buffer waits for a pool buffer with reads paused", () => {
    const { events, handler } = recorder();
    const { session, transport, counters } = fakeSession(handler, {}, 1);
    const other = fakeSession(handler, {}, 0);
    expect(other.counters.messageBuffersInUse).toBe(0);
    session.onData(clientFrame(2, "y".repeat(200), { final: false }), true);
    expect(counters.messageBuffersInUse).toBe(1);
    session.onData(clientFrame(0, "z"), true);
    expect([events, counters.messageBuffersInUse, transport.paused]).toEqual([
      [{ message: `${"y".repeat(200)}z`, isText: false }],
      0,
      false,
    ]);
  });
});

describe("WebSocketSession deadlines", () => {
  test("a client that sends nothing for idleTimeoutMs is closed with 1001; idle counted", () => {
    const { events, handler } = recorder();
    const { session, transport, clock, counters } = fakeSession(handler, {
      idleTimeoutMs: 100,
      pingIntervalMs: 0,
    });
    session.checkDeadlines(99);
    expect(transport.frames()).toEqual([]);
    clock.now = 100;
    session.checkDeadlines(100);
    expect(summary(transport.frames())).toEqual([[8, 1001, "idle timeout"]]);
    session.onData(clientFrame(8, closePayload(1001)), true);
    expect(transport.ended).toBe(true);
    session.onClose();
    expect([events, counters.closes.idle]).toEqual([[{ close: 1001, reason: "" }], 1]);
  });

  test("time with reads paused by the server (a message handled) counts toward no idle or pong deadline", async () => {
    let finish: () => void = () => {};
    const { session, transport, clock, counters } = fakeSession(
      {
        message: () =>
          new Promise<void>((resolve) => {
            finish = resolve;
          }),
        close() {},
      },
      { pingIntervalMs: 100, pongTimeoutMs: 50, idleTimeoutMs: 300 },
    );
    clock.now = 90;
    // A ping is out (sent at 100) when the client's message comes: its pong waits unread behind it.
    session.checkDeadlines(100);
    session.onData(clientFrame(1, "slow"), true);
    expect(transport.paused).toBe(true);
    for (let now = 110; now <= 1000; now += 10) {
      clock.now = now;
      session.checkDeadlines(now);
    }
    expect([transport.terminated, counters.pingsSent, summary(transport.frames())]).toEqual([
      false,
      1,
      [[9, ""]],
    ]);
    finish();
    await Bun.sleep(0);
    expect(transport.paused).toBe(false);
    // Quiet time counts from the last check with reads paused (1000): the next ping at 1100.
    session.checkDeadlines(1099);
    expect(counters.pingsSent).toBe(1);
    session.checkDeadlines(1100);
    expect(counters.pingsSent).toBe(2);
    session.checkDeadlines(1150);
    expect(transport.terminated).toBe(true);
  });

  test("a client that does not answer our close within closeTimeoutMs is dropped", () => {
    const { events, handler } = recorder();
    const { session, transport, clock, counters } = fakeSession(handler, { closeTimeoutMs: 50 });
    session.close(4000, "bye");
    expect(summary(transport.frames())).toEqual([[8, 4000, "bye"]]);
    session.checkDeadlines(49);
    expect(transport.terminated).toBe(false);
    clock.now = 50;
    session.checkDeadlines(50);
    expect(transport.terminated).toBe(true);
    session.onClose();
    expect([events, counters.closes.closeTimeout]).toEqual([[{ close: 1006, reason: "" }], 1]);
  });

  test("close codes an application may not send are a TypeError", () => {
    const { handler } = recorder();
    const { session } = fakeSession(handler);
    expect(() => session.close(1005)).toThrow(TypeError);
    expect(() => session.close(1000, "x".repeat(124))).toThrow("at most 123 bytes");
    expect(session.open).toBe(true);
  });
});

test("send says queued, then backpressured while the client does not read; drain follows", () => {
  const { events, handler } = recorder();
  const { session, transport, flush } = fakeSession(handler, { maxOutboundBytes: 100_000 });
  transport.window = 0;
  expect(session.send(new Uint8Array(2000))).toBe("queued");
  flush();
  expect([session.send(new Uint8Array(2000)), session.bufferedBytes]).toEqual([
    "backpressured",
    4008,
  ]);
  transport.window = Number.POSITIVE_INFINITY;
  session.onDrain();
  expect([events, session.bufferedBytes, transport.frames().length]).toEqual([["drain"], 0, 2]);
});

describe("a message sent back as it lies (an echo too large for the batch)", () => {
  const payload = Uint8Array.from({ length: 1000 }, (_, index) => index % 251);

  function echoSession() {
    const results: string[] = [];
    const { session, transport, counters } = fakeSession(
      {
        message(target, data) {
          results.push(target.send(data));
          results.push(target.send("after"));
        },
        close() {},
      },
      { maxOutboundBytes: 100_000 },
    );
    return { session, transport, counters, results };
  }

  test("is written from the client's own chunk, its header where the client's was", () => {
    const { session, transport, results } = echoSession();
    const chunk = clientFrame(2, payload);
    session.onData(chunk, true);
    // The first write is the reply frame, taken from the chunk the client's frame came in.
    expect(transport.buffers[0]!.buffer).toBe(chunk.buffer);
    expect(results).toEqual(["queued", "queued"]);
    const frames = transport.frames();
    expect(frames.map((frame) => frame.opcode)).toEqual([2, 1]);
    expect(frames[0]!.payload).toEqual(payload);
    expect(text.decode(frames[1]!.payload)).toBe("after");
  });

  test("taken in part by the socket: the rest is kept as a copy, and a pong waits for it", () => {
    const { session, transport, results } = echoSession();
    transport.window = 300;
    const chunk = concatBytes(clientFrame(2, payload), clientFrame(9, "p"));
    session.onData(chunk, true);
    expect(results).toEqual(["backpressured", "backpressured"]);
    // What the client sends later may reuse nothing of the first chunk's bytes.
    chunk.fill(0);
    transport.window = Number.POSITIVE_INFINITY;
    session.onDrain();
    const frames = transport.frames();
    expect(frames.map((frame) => frame.opcode)).toEqual([2, 10, 1]);
    expect(frames[0]!.payload).toEqual(payload);
    expect(session.bufferedBytes).toBe(0);
  });

  test("whose header came in an earlier chunk is copied (no room before it) and still right", () => {
    const { session, transport, results } = echoSession();
    const frame = clientFrame(2, payload);
    const second = frame.slice(8);
    session.onData(frame.slice(0, 8), true);
    session.onData(second, true);
    expect(transport.buffers[0]!.buffer).not.toBe(second.buffer);
    expect(results).toEqual(["queued", "queued"]);
    expect(transport.frames()[0]!.payload).toEqual(payload);
  });

  test("sent once the handler is over (a kept reference) is copied like any bytes", async () => {
    let kept: Uint8Array | null = null;
    const { session, transport } = fakeSession(
      {
        message(_target, data) {
          kept = data;
        },
        close() {},
      },
      { maxOutboundBytes: 100_000 },
    );
    const chunk = clientFrame(2, payload);
    session.onData(chunk, true);
    expect(session.send(kept!)).toBe("queued");
    session.flush();
    expect(transport.buffers[0]!.buffer).not.toBe(chunk.buffer);
    expect(transport.frames()[0]!.payload).toEqual(payload);
  });
});

test("a large chunk is freed once used up, never while a message lent from it is handled", async () => {
  const seen: number[] = [];
  let finish: () => void = () => {};
  const { session } = fakeSession(
    {
      async message(_session, data) {
        if (data.length !== 20_000) return;
        seen.push(data.length, data[19_999]!);
        await new Promise<void>((resolve) => (finish = resolve));
        seen.push(data.length, data[19_999]!);
      },
      close() {},
    },
    { maxMessageBytes: 32 * 1024, maxFrameBytes: 32 * 1024 },
  );
  const payload = new Uint8Array(20_000).fill(7);
  const chunk = concatBytes(clientFrame(2, payload), clientFrame(1, "next"));
  session.onData(chunk, true);
  expect(chunk.length).toBe(20_008 + 10);
  finish();
  await Bun.sleep(0);
  expect(seen).toEqual([20_000, 7, 20_000, 7]);
  // Both messages are over: the chunk's memory went back at once (its views read as empty).
  expect(chunk.length).toBe(0);
});

describe("published frames", () => {
  const publish = (text: string) => EncodedMessage.of(text);

  test("one publish to an idle socket is written from the shared frame itself", () => {
    const { session, transport, flush } = fakeSession(recorder().handler);
    const message = publish("to everyone");
    expect(session.sendEncoded(message)).toBe("queued");
    flush();
    expect(transport.buffers).toEqual([message.frame]);
    expect(transport.buffers[0]).toBe(message.frame);
    expect(summary(transport.frames())).toEqual([[1, "to everyone"]]);
  });

  test("a socket that got a publish and then a message in one turn writes once, at the flush", () => {
    const { session, transport, flush } = fakeSession(recorder((data) => data.slice()).handler);
    session.sendEncoded(publish("published"));
    session.onData(clientFrame(2, "echoed"), true);
    expect(transport.buffers.length).toBe(0);
    flush();
    expect(transport.buffers.length).toBe(1);
    expect(summary(transport.frames())).toEqual([
      [1, "published"],
      [2, "echoed"],
    ]);
  });

  test("a send after a publish joins it in the batch: one write", () => {
    for (const second of ["text", new Uint8Array(8)]) {
      const { session, transport, flush } = fakeSession(recorder().handler);
      session.sendEncoded(publish("first"));
      session.send(second);
      flush();
      expect(transport.buffers.length).toBe(1);
      expect(transport.frames().map((frame) => frame.opcode)).toEqual([
        1,
        second === "text" ? 1 : 2,
      ]);
    }
  });

  test("more before the write: all of them leave together, in order, in one write", () => {
    const { session, transport, flush } = fakeSession(recorder().handler, {
      maxOutboundBytes: 100_000,
    });
    const first = publish("one");
    session.sendEncoded(first);
    session.sendEncoded(publish("two"));
    session.send("three");
    session.send(new Uint8Array(3000).fill(0x61));
    session.sendEncoded(publish("four"));
    flush();
    expect(transport.buffers.length).toBe(3);
    expect(transport.buffers[0]).not.toBe(first.frame);
    expect(summary(transport.frames())).toEqual([
      [1, "one"],
      [1, "two"],
      [1, "three"],
      [2, "a".repeat(3000)],
      [1, "four"],
    ]);
  });
});
