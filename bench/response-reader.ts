const lineFeed = 0x0a;
/** A response head longer than this is not one of the bench servers' answers. */
const maxHeadBytes = 16 * 1024;

enum State {
  Head,
  Body,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers,
}

/**
 * Reads HTTP/1.1 responses off a connection incrementally, chunk by chunk, and reports the
 * status of each one when its last byte arrives. Bodies are skipped, not kept: Content-Length
 * and chunked framing are followed byte by byte in linear time, so a client that reads many
 * responses costs the load core little. Only what the bench servers send is understood; anything
 * else throws.
 */
export class ResponseReader {
  #state = State.Head;
  /** The head (or chunk-size line, or trailer line) collected so far, as Latin-1 text. */
  #line = "";
  #status = 0;
  #remaining = 0;

  /** Feeds received bytes; returns the statuses of the responses they complete, in order. */
  push(bytes: Uint8Array): number[] {
    const completed: number[] = [];
    let index = 0;
    while (index < bytes.length) {
      switch (this.#state) {
        case State.Head:
        case State.ChunkSize:
        case State.ChunkEnd:
        case State.Trailers: {
          const end = this.#collectLine(bytes, index, this.#state === State.Head);
          if (end < 0) return completed;
          index = end;
          const line = this.#line;
          this.#line = "";
          if (this.#state === State.Head) this.#onHead(line, completed);
          else this.#onChunkLine(line, completed);
          break;
        }
        case State.Body: {
          const taken = Math.min(this.#remaining, bytes.length - index);
          index += taken;
          this.#remaining -= taken;
          if (this.#remaining === 0) this.#finish(completed);
          break;
        }
        case State.ChunkData: {
          const taken = Math.min(this.#remaining, bytes.length - index);
          index += taken;
          this.#remaining -= taken;
          if (this.#remaining === 0) this.#state = State.ChunkEnd;
          break;
        }
      }
    }
    return completed;
  }

  #onHead(head: string, completed: number[]): void {
    const lines = head.split("\r\n");
    const status = Number(lines[0]!.split(" ")[1]);
    if (!lines[0]!.startsWith("HTTP/1.1 ") || !Number.isInteger(status)) {
      throw new Error(`not an HTTP/1.1 response head: ${JSON.stringify(lines[0])}`);
    }
    this.#status = status;
    let length = 0;
    let chunked = false;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "content-length") length = Number(value);
      else if (name === "transfer-encoding") chunked = value.toLowerCase() === "chunked";
    }
    const bodiless = status < 200 || status === 204 || status === 304;
    if (bodiless || (!chunked && length === 0)) {
      this.#finish(completed);
    } else if (chunked) {
      this.#state = State.ChunkSize;
    } else {
      this.#remaining = length;
      this.#state = State.Body;
    }
  }

  #onChunkLine(line: string, completed: number[]): void {
    if (this.#state === State.ChunkEnd) {
      this.#state = State.ChunkSize;
    } else if (this.#state === State.Trailers) {
      if (line === "") this.#finish(completed);
    } else {
      const size = Number.parseInt(line, 16);
      if (!Number.isInteger(size)) throw new Error(`bad chunk size line ${JSON.stringify(line)}`);
      this.#remaining = size;
      this.#state = size === 0 ? State.Trailers : State.ChunkData;
    }
  }

  /**
   * Appends bytes from `start` to the current line until it ends (one CRLF, or CRLFCRLF for a
   * whole head); returns the index after the terminator, or -1 when it has not arrived yet.
   */
  #collectLine(bytes: Uint8Array, start: number, wholeHead: boolean): number {
    for (let index = start; index < bytes.length; index++) {
      const byte = bytes[index]!;
      if (byte === lineFeed && this.#line.endsWith(wholeHead ? "\r\n\r" : "\r")) {
        this.#line = this.#line.slice(0, wholeHead ? -3 : -1);
        return index + 1;
      }
      this.#line += String.fromCharCode(byte);
      if (this.#line.length > maxHeadBytes) throw new Error("response head too long");
    }
    return -1;
  }

  #finish(completed: number[]): void {
    completed.push(this.#status);
    this.#state = State.Head;
  }
}
