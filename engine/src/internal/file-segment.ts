import { readSync } from "node:fs";
import type { StatsCounters } from "../stats.ts";
import {
  type OutputChannel,
  outputBlocked,
  outputClosed,
  outputDone,
  type WritableSocket,
} from "./output-channel.ts";
import { loadSendFile } from "./send-file.ts";

/**
 * The most bytes read into the process to arm `drain` when sendfile found the socket full. The
 * piece only has to make Bun see a write it could not finish; the kernel wakes `drain` when the
 * socket has much room again, whatever its size. Read and written, a 64 KiB piece cost more
 * than the sendfile calls it saved: 20 concurrent downloads of a 10 MiB file from the bare engine
 * took 1.7-2.0 ms of server CPU each with 64 KiB pieces against 0.9-1.4 ms with 4, 8 or 16 KiB
 * (three alternated rounds of 8 s each; the smaller pieces are more often taken whole, so
 * sendfile runs about four times as often, and still costs less); through `serveStatic`,
 * 1.59-1.94 ms against 1.75-2.06 (four alternated rounds; `Bun.file` 1.23-1.60).
 */
export const drainPieceBytes = 16 * 1024;

/** The piece of a segment not read yet: one for every slot. */
const noPiece = new Uint8Array(0);

/**
 * A range of an open file, the last part of a connection's output: sent with `sendfile(2)`, so
 * the file's bytes go from the page cache to the socket without entering the process. When the
 * kernel takes less than asked (the socket's buffer is full), the next piece is read into free
 * memory (the worker's staging) and written through the socket like any output: Bun then arms
 * `drain`, which a write it does not see could not do. What the socket did not take of that
 * piece is dropped and sent again from the file, with sendfile, after `drain`: one write fewer
 * per wait, and no staging held across it. Keeping it and writing it first made a 10 MiB download
 * cost a bare `Bun.listen` server sending this way about 1.6 times the CPU (alternated with
 * `Bun.file` in `bench/alternate.ts`: 0.57-0.63x `Bun.file`'s downloads per CPU-second keeping
 * the rest, 0.89-1.16x dropping it; through the engine the gain is lost in the noise). Where
 * there is no sendfile, every piece is read and written this way, and what the socket did not
 * take is sent as the channel's segment before the file goes on (reading it again would cost
 * more).
 */
export class FileSegment {
  readonly #channel: OutputChannel;
  #descriptor = -1;
  #position = 0;
  #end = 0;
  #onShort: (error: Error) => void = ignore;
  /** Where a piece is read when the socket is full: the worker's staging. */
  #piece: Uint8Array = noPiece;

  constructor(channel: OutputChannel) {
    this.#channel = channel;
  }

  /** Whether a range waits to be sent. */
  get pending(): boolean {
    return this.#descriptor >= 0;
  }

  /**
   * Queues bytes `[from, to)` of the open file `descriptor`, after the rest of the output;
   * `onShort` hears it when the file ends before `to` (the range is then dropped). `piece` is
   * free memory to read a piece into when the socket is full (the worker's staging: up to
   * `drainPieceBytes` of it with sendfile, all of it without).
   */
  set(
    descriptor: number,
    from: number,
    to: number,
    onShort: (error: Error) => void,
    piece: Uint8Array,
  ): void {
    this.#descriptor = descriptor;
    this.#position = from;
    this.#end = to;
    this.#onShort = onShort;
    this.#piece = piece;
  }

  /** Forgets the range (the connection is closing). */
  clear(): void {
    this.#descriptor = -1;
  }

  /**
   * Writes what the socket takes (the batch buffer is empty when this runs); returns
   * `outputDone` (also for a file shorter than its range), `outputBlocked` or `outputClosed`.
   */
  writeTo(socket: WritableSocket, stats: StatsCounters): number {
    const channel = this.#channel;
    const sendFile = loadSendFile();
    const socketDescriptor = socket.fd ?? -1;
    const inKernel = sendFile !== null && socketDescriptor >= 0;
    while (this.#position < this.#end) {
      if (inKernel) {
        const wanted = this.#end - this.#position;
        const sent = sendFile(socketDescriptor, this.#descriptor, this.#position, wanted);
        if (sent > 0) {
          this.#position += sent;
          stats.bytesOut += sent;
          stats.bytesSentFromFiles += sent;
          // All taken: the range is done. Part taken: the socket's buffer is full, so asking again
          // would only fail; the piece below arms `drain`.
          if (sent === wanted) continue;
        }
      }
      const piece = this.#piece;
      const count = this.#readPiece(piece, sendFile === null ? piece.length : drainPieceBytes);
      if (count <= 0) {
        // The file ended (or failed) before the range did: the answer cannot be completed. The
        // stream fails, so the handler hears why (and an unfinished stream closes the connection).
        this.clear();
        this.#onShort(new Error("corral: the file ended before the range sent from it"));
        return outputDone;
      }
      const taken = socket.write(piece, 0, count);
      if (taken < 0) return outputClosed;
      stats.bytesOut += taken;
      if (inKernel) {
        // The piece only armed `drain`: what the socket did not take goes again with sendfile.
        this.#position += taken;
        if (taken < count) return outputBlocked;
        continue;
      }
      this.#position += count;
      if (taken < count) {
        // The rest is written before the file goes on, after `drain`.
        channel.setSegment(piece, taken, count, true, false);
        return outputBlocked;
      }
    }
    this.clear();
    return outputDone;
  }

  #readPiece(target: Uint8Array, most: number): number {
    try {
      return readSync(
        this.#descriptor,
        target,
        0,
        Math.min(target.length, most, this.#end - this.#position),
        this.#position,
      );
    } catch {
      return -1;
    }
  }
}

function ignore(): void {}
