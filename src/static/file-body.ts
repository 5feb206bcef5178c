import type { StreamWriter } from "../response-stream.ts";
import { FileChangedError } from "./file-changed-error.ts";
import type { StaticFile } from "./static-file.ts";

/**
 * Bytes of a file handed to the kernel between two checks that the file is unchanged: a change
 * in place is caught within this many bytes, and the answer cut short.
 */
export const sendFilePieceBytes = 4 * 1024 * 1024;

/**
 * Writes bytes `start` to `end` (inclusive) of `file`. A file on disk goes with `sendfile` where
 * the platform has it (Linux): its bytes never enter the process, a piece of
 * `sendFilePieceBytes` at a time, each followed by a check that the file is unchanged. Otherwise
 * through the worker's staging, one staging window at a time: each piece read straight into
 * staging (no copy), checked, and flushed before the next is read. Either way a download holds no
 * memory of its own whatever the file's size.
 */
export async function writeFileRange(
  writer: StreamWriter,
  file: StaticFile,
  start: number,
  end: number,
): Promise<void> {
  const descriptor = file.descriptor;
  if (descriptor !== undefined && writer.sendsFilesInKernel) {
    return sendFileRange(writer, file, descriptor, start, end);
  }
  let position = start;
  while (position <= end) {
    let window = writer.stagingWindow();
    if (window.length === 0) {
      await writer.flush();
      window = writer.stagingWindow();
    }
    const wanted = Math.min(window.length, end + 1 - position);
    const pending = file.read(
      wanted === window.length ? window : window.subarray(0, wanted),
      position,
    );
    const count = typeof pending === "number" ? pending : await pending;
    // Read first, then check: a change that raced the read shows in the check, so no piece of
    // new content is ever sent after old content (or the other way round).
    if (count <= 0 || !file.unchanged()) throw new FileChangedError();
    writer.commit(count);
    position += count;
  }
}

/**
 * The kernel reads the file as it sends it, so a change can only be seen after the piece that
 * raced it went out: the answer is then cut short (the connection closes before its declared
 * length), and a client never takes a mix of old and new content for a whole answer.
 */
async function sendFileRange(
  writer: StreamWriter,
  file: StaticFile,
  descriptor: number,
  start: number,
  end: number,
): Promise<void> {
  if (!file.unchanged()) throw new FileChangedError();
  for (let position = start; position <= end; position += sendFilePieceBytes) {
    const length = Math.min(sendFilePieceBytes, end + 1 - position);
    try {
      await writer.sendFile(descriptor, position, length);
    } catch (error) {
      // A file that ended early ends the connection: say why, rather than that the client left.
      if (!file.unchanged()) throw new FileChangedError();
      throw error;
    }
    if (!file.unchanged()) throw new FileChangedError();
  }
}
