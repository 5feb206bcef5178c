import type { StreamWriter } from "../response-stream.ts";
import { FileChangedError } from "./file-changed-error.ts";
import type { StaticFile } from "./static-file.ts";

/**
 * Writes bytes `start` to `end` (inclusive) of `file` through the worker's staging, one staging
 * window at a time: each piece is read straight into staging (no copy), checked against the file
 * as opened, and flushed before the next is read, so a download holds no memory of its own
 * whatever the file's size. `started` says whether bytes of this answer went out already.
 */
export async function writeFileRange(
  writer: StreamWriter,
  file: StaticFile,
  start: number,
  end: number,
): Promise<void> {
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
