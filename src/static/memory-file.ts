import type { FileValidators, StaticFile } from "./static-file.ts";

/**
 * A file held in memory (an embedded asset, or a small file on disk read whole when it was
 * verified): sent by reference, and as it was when read, whatever happens on disk later.
 */
export class MemoryFile implements StaticFile {
  readonly size: number;
  readonly validators: FileValidators;
  readonly bytes: Uint8Array;
  readonly descriptor = undefined;

  constructor(bytes: Uint8Array, validators: FileValidators) {
    this.bytes = bytes;
    this.size = bytes.length;
    this.validators = validators;
  }

  read(target: Uint8Array, position: number): number {
    const end = Math.min(this.size, position + target.length);
    target.set(this.bytes.subarray(position, end));
    return end - position;
  }

  unchanged(): boolean {
    return true;
  }

  close(): void {}
}
