import { MessageBufferPool } from "../../src/websocket/message-buffer-pool.ts";
import type { WebSocketHandler, WebSocketTransport } from "../../src/websocket/websocket-host.ts";
import {
  defaultWebSocketLimits,
  type WebSocketLimits,
} from "../../src/websocket/websocket-options.ts";
import { WebSocketSession } from "../../src/websocket/websocket-session.ts";
import { WebSocketCounters } from "../../src/websocket/websocket-stats.ts";
import { readServerFrames, type ServerFrame } from "./websocket-frames.ts";

/** A transport in memory: records writes, takes at most `window` bytes per write when set. */
export class FakeTransport implements WebSocketTransport {
  written: number[] = [];
  /** The array each write was given (to tell a copy from the caller's own bytes). */
  buffers: Uint8Array[] = [];
  paused = false;
  ended = false;
  terminated = false;
  /** Times a handler that outlived the connection settled (`released`). */
  releases = 0;
  /** Bytes one write takes; Infinity takes everything. */
  window = Number.POSITIVE_INFINITY;

  write(buffer: Uint8Array, offset: number, length: number): number {
    if (this.ended || this.terminated) return -1;
    this.buffers.push(buffer);
    const took = Math.min(length, this.window);
    for (let index = 0; index < took; index++) this.written.push(buffer[offset + index]!);
    return took;
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
  end(): void {
    this.ended = true;
  }
  terminate(): void {
    this.terminated = true;
  }
  released(): void {
    this.releases++;
  }
  /** The whole frames written so far. */
  frames(): ServerFrame[] {
    return readServerFrames(Uint8Array.from(this.written)).frames;
  }
}

/** A session over a fake transport with a manual clock; flushes run when the test says. */
export function fakeSession(
  handler: WebSocketHandler,
  limits: Partial<WebSocketLimits> = {},
  poolBuffers = 1,
) {
  const transport = new FakeTransport();
  const counters = new WebSocketCounters();
  const clock = { now: 0 };
  const scheduled: WebSocketSession[] = [];
  const resolved = { ...defaultWebSocketLimits, ...limits };
  const pool = new MessageBufferPool(
    poolBuffers,
    resolved.maxMessageBytes,
    counters,
    () => clock.now,
  );
  const session = new WebSocketSession(
    transport,
    {
      counters,
      pool,
      writeStallMs: 1000,
      now: () => clock.now,
      countBytesOut() {},
      scheduleFlush: (target) => scheduled.push(target),
    },
    handler,
    resolved,
    "",
    { small: new Uint8Array(64), batch: new Uint8Array(256) },
  );
  session.start(null);
  const flush = () => {
    for (const target of scheduled.splice(0)) target.flush();
  };
  return { session, transport, counters, clock, flush, pool };
}
