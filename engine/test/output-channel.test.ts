// The output channel sends a batch (response heads, small bodies) and a segment written in place
// (a borrowed body, or staging) with one vectored write when the socket has a descriptor, and with
// two ordinary writes when it has none or the vectored write fails. Nothing is copied either way.
import { afterEach, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutputChannel, outputDone, type WritableSocket } from "../src/internal/output-channel.ts";
import { StatsCounters } from "../src/stats.ts";

const head = new TextEncoder().encode("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
const body = Uint8Array.from({ length: 100_000 }, (_, index) => index % 251);

/** A socket that records what `write` was given, with an optional descriptor. */
class RecordingSocket implements WritableSocket {
  readonly writes: Uint8Array[] = [];
  readonly fd: number | undefined;

  constructor(descriptor: number | undefined) {
    this.fd = descriptor;
  }

  write(data: Uint8Array, byteOffset: number, byteLength: number): number {
    this.writes.push(data.slice(byteOffset, byteOffset + byteLength));
    return byteLength;
  }
}

/** A channel holding `head` in its batch and `body[from, body.length)` as a borrowed segment. */
function channelWithHeadAndBody(from = 0): OutputChannel {
  const channel = new OutputChannel(new Uint8Array(1024));
  channel.buffer.set(head, 0);
  channel.end = head.length;
  channel.setSegment(body, from, body.length, false, true);
  return channel;
}

function joined(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

let directory: string | null = null;
afterEach(() => {
  if (directory !== null) rmSync(directory, { recursive: true, force: true });
  directory = null;
});

/** A descriptor of a fresh file; what a vectored write sends lands there. */
function openTarget(): { descriptor: number; path: string } {
  directory = mkdtempSync(join(tmpdir(), "corral-output-"));
  const path = join(directory, "sent.bin");
  return { descriptor: openSync(path, "w"), path };
}

describe("OutputChannel", () => {
  test("a head and a borrowed body leave in one vectored write", () => {
    const { descriptor, path } = openTarget();
    const socket = new RecordingSocket(descriptor);
    const stats = new StatsCounters();
    const channel = channelWithHeadAndBody();
    expect(channel.flushTo(socket, stats)).toBe(outputDone);
    closeSync(descriptor);
    expect(socket.writes).toHaveLength(0);
    expect(readFileSync(path)).toEqual(Buffer.from(joined(head, body)));
    expect(stats.bytesOut).toBe(head.length + body.length);
    expect(stats.bytesBorrowed).toBe(body.length);
    expect(channel.pending).toBe(false);
    expect(channel.room).toBe(1024);
  });

  test("a segment that starts at an offset is sent from that offset", () => {
    const { descriptor, path } = openTarget();
    const stats = new StatsCounters();
    const channel = channelWithHeadAndBody(40_000);
    expect(channel.flushTo(new RecordingSocket(descriptor), stats)).toBe(outputDone);
    closeSync(descriptor);
    expect(readFileSync(path)).toEqual(Buffer.from(joined(head, body.subarray(40_000))));
    expect(stats.bytesBorrowed).toBe(60_000);
  });

  for (const [name, descriptor] of [
    ["without a descriptor", undefined],
    ["once the descriptor is -1 (closed)", -1],
  ] as const) {
    test(`${name}, the batch and the segment are two ordinary writes`, () => {
      const socket = new RecordingSocket(descriptor);
      const stats = new StatsCounters();
      expect(channelWithHeadAndBody().flushTo(socket, stats)).toBe(outputDone);
      expect(socket.writes).toEqual([head, body]);
      expect(stats.bytesOut).toBe(head.length + body.length);
      expect(stats.bytesBorrowed).toBe(body.length);
    });
  }

  test("a failing vectored write falls back to ordinary writes and loses nothing", () => {
    const { descriptor: writable, path } = openTarget();
    closeSync(writable);
    // Read-only, so writev fails with EBADF (a closed number could be reused by something else).
    const descriptor = openSync(path, "r");
    const socket = new RecordingSocket(descriptor);
    const stats = new StatsCounters();
    expect(channelWithHeadAndBody().flushTo(socket, stats)).toBe(outputDone);
    closeSync(descriptor);
    expect(socket.writes).toEqual([head, body]);
    expect(stats.bytesOut).toBe(head.length + body.length);
  });
});
