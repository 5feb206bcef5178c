// Where the upload bench servers put a body: counted and dropped (`/sink`), or written to a file
// in a temporary folder (`/file`, removed after each upload), one piece at a time.
import { mkdtempSync } from "node:fs";
import { type FileHandle, open, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const sinkPath = "/sink";
export const filePath = "/file";

/** One upload's destination: each piece is consumed before the next is read. */
export interface UploadSink {
  write(piece: Uint8Array): Promise<void> | void;
  finish(): Promise<void> | void;
}

const folder = mkdtempSync(join(tmpdir(), "corral-bench-upload-"));
let uploads = 0;

/** Counts and drops the bytes. */
function nullSink(): UploadSink {
  return { write() {}, finish() {} };
}

/** Writes the bytes to a new file, removed once complete (the disk must not fill up). */
async function fileSink(): Promise<UploadSink> {
  const path = join(folder, `upload-${process.pid}-${++uploads}`);
  const file: FileHandle = await open(path, "wx");
  return {
    async write(piece) {
      let written = 0;
      while (written < piece.length) {
        written += (await file.write(piece, written, piece.length - written)).bytesWritten;
      }
    },
    async finish() {
      await file.close();
      await unlink(path);
    },
  };
}

/** The sink for a request path, or undefined for an unknown one. */
export async function sinkFor(path: string): Promise<UploadSink | undefined> {
  if (path === sinkPath) return nullSink();
  if (path === filePath) return fileSink();
  return undefined;
}
