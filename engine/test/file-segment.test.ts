import { afterEach, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drainPieceBytes } from "../src/internal/file-segment.ts";
import { OutputChannel, outputBlocked } from "../src/internal/output-channel.ts";
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
