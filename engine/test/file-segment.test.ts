import { afterEach, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drainPieceBytes } from "../src/internal/file-segment.ts";
import { OutputChannel, outputBlocked, outputDone } from "../src/internal/output-channel.ts";
import { overrideSendFile } from "../src/internal/send-file.ts";
import { StatsCounters } from "../src/stats.ts";

afterEach(() => overrideSendFile(undefined));

/** A socket whose buffer is full: it takes nothing and records what it was offered. */
function fullSocket() {
  const offered: number[] = [];
  return {
    offered,
    fd: 7,
    write(_data: Uint8Array, _offset: number, length: number) {
      offered.push(length);
      return 0;
    },
  };
}

/** Sends a 1 MiB file range through a full socket; returns the sizes of the pieces offered to it. */
function piecesOffered(): { result: number; offered: number[]; fromFile: number } {
  const directory = mkdtempSync(join(tmpdir(), "corral-file-segment-"));
  const path = join(directory, "body.bin");
  writeFileSync(path, new Uint8Array(1024 * 1024));
  const descriptor = openSync(path, "r");
  try {
    const channel = new OutputChannel(new Uint8Array(1024));
    const stats = new StatsCounters();
    const socket = fullSocket();
    channel.file.set(descriptor, 0, 1024 * 1024, () => {}, new Uint8Array(64 * 1024));
    const result = channel.file.writeTo(socket, stats);
    return { result, offered: socket.offered, fromFile: stats.bytesSentFromFiles };
  } finally {
    closeSync(descriptor);
    rmSync(directory, { recursive: true, force: true });
  }
}

test("with sendfile, a full socket is offered at most drainPieceBytes read into the process, to arm drain", () => {
  // The kernel takes 1000 bytes, then the socket is full.
  overrideSendFile((_socket, _file, _position, count) => Math.min(count, 1000));
  expect(piecesOffered()).toEqual({
    result: outputBlocked,
    offered: [drainPieceBytes],
    fromFile: 1000,
  });
});

test("without sendfile, every piece is read whole into the staging given (64 KiB here)", () => {
  overrideSendFile(null);
  expect(piecesOffered()).toEqual({ result: outputBlocked, offered: [64 * 1024], fromFile: 0 });
});

test("with sendfile, what the socket did not take of that piece is not kept: after drain, sendfile goes on from the last byte taken", () => {
  const directory = mkdtempSync(join(tmpdir(), "corral-file-segment-"));
  const path = join(directory, "body.bin");
  writeFileSync(path, new Uint8Array(1024 * 1024));
  const descriptor = openSync(path, "r");
  try {
    // The kernel takes 1000 bytes of the first sendfile, then the rest in one call.
    const asked: [number, number][] = [];
    overrideSendFile((_socket, _file, position, count) => {
      asked.push([position, count]);
      return asked.length === 1 ? 1000 : count;
    });
    const offered: number[] = [];
    let room = 100;
    const socket = {
      fd: 7,
      write(_data: Uint8Array, _offset: number, length: number) {
        offered.push(length);
        const taken = Math.min(room, length);
        room -= taken;
        return taken;
      },
    };
    const channel = new OutputChannel(new Uint8Array(1024));
    const stats = new StatsCounters();
    channel.file.set(descriptor, 0, 1024 * 1024, () => {}, new Uint8Array(64 * 1024));
    const first = channel.file.writeTo(socket, stats);
    const pendingAfterFirst = channel.pending;
    const second = channel.file.writeTo(socket, stats);
    expect({
      first,
      pendingAfterFirst,
      second,
      asked,
      offered,
      bytesOut: stats.bytesOut,
      fromFile: stats.bytesSentFromFiles,
      filePending: channel.file.pending,
    }).toEqual({
      first: outputBlocked,
      pendingAfterFirst: true,
      second: outputDone,
      // Resumed at 1000 + 100: the 100 bytes the socket took of the piece, nothing re-sent.
      asked: [
        [0, 1024 * 1024],
        [1100, 1024 * 1024 - 1100],
      ],
      offered: [drainPieceBytes],
      bytesOut: 1024 * 1024,
      fromFile: 1024 * 1024 - 100,
      filePending: false,
    });
  } finally {
    closeSync(descriptor);
    rmSync(directory, { recursive: true, force: true });
  }
});
