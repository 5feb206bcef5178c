const stateHead = 0;
const stateLength = 1;
const stateChunkSize = 2;
const stateChunkData = 3;
const stateChunkEnd = 4;
const stateTrailers = 5;
const stateUntilClose = 6;
const stateDone = 7;
const stateFailed = 8;

const crlf = Buffer.from("\r\n", "latin1");
const emptyLine = Buffer.from("\r\n\r\n", "latin1");
const noBytes = Buffer.alloc(0);

/** What the reader tells the in-process client. */
export interface WireResponseEvents {
  /** The response is complete or failed: the connection has served its purpose. */
  settled(): void;
  /** The caller cancelled the body: it stopped reading, which is a disconnect. */
  cancelled(): void;
}

/**
 * Reads one HTTP/1.1 response from the bytes of a connection as they arrive, the way a client
 * reads a socket: `response` resolves as soon as the head is complete (interim 1xx responses are
 * skipped), and its body is a stream that yields each part as it arrives (each flushed chunk of
 * a streamed response). A connection that closes before the framing says the body is complete
 * makes the body stream error, so a stream aborted after its first flush does not look complete.
 * Headers are kept as sent, `Transfer-Encoding` and `Connection` included.
 */
export class WireResponseReader {
  readonly response: Promise<Response>;
  readonly #isHeadRequest: boolean;
  readonly #events: WireResponseEvents;
  readonly #resolve: (response: Response) => void;
  readonly #reject: (reason: unknown) => void;
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  #state = stateHead;
  /** Bytes received and not consumed yet. */
  #pending: Buffer = noBytes;
  /** Body bytes still due: of a Content-Length body, or of the current chunk. */
  #remaining = 0;

  constructor(isHeadRequest: boolean, events: WireResponseEvents) {
    this.#isHeadRequest = isHeadRequest;
    this.#events = events;
    const { promise, resolve, reject } = Promise.withResolvers<Response>();
    this.response = promise;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** Whether the response is complete or failed. */
  get settled(): boolean {
    return this.#state === stateDone || this.#state === stateFailed;
  }

  /** Bytes the engine wrote. */
  receive(bytes: Uint8Array): void {
    if (this.settled) return;
    const incoming = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#pending =
      this.#pending.length === 0 ? incoming : Buffer.concat([this.#pending, incoming]);
    while (!this.settled && this.#step()) {}
  }

  /** The engine closed the connection: a body that runs to the close ends, any other fails. */
  closed(): void {
    if (this.settled) return;
    if (this.#state === stateUntilClose) {
      this.#finish();
      return;
    }
    this.fail(
      new Error(
        this.#controller === null
          ? "corral: the connection closed without a complete response"
          : "corral: the connection closed before the response body was complete",
      ),
    );
  }

  /** Ends the exchange with `reason`: the response promise rejects, or the body stream errors. */
  fail(reason: unknown): void {
    if (this.settled) return;
    this.#state = stateFailed;
    if (this.#controller === null) this.#reject(reason);
    else this.#controller.error(reason);
    this.#events.settled();
  }

  /** Consumes what it can of the pending bytes; false when it needs more. */
  #step(): boolean {
    switch (this.#state) {
      case stateHead:
        return this.#readHead();
      case stateLength:
      case stateChunkData:
        return this.#readData();
      case stateChunkSize:
        return this.#readChunkSize();
      case stateChunkEnd:
        return this.#readChunkEnd();
      case stateTrailers:
        return this.#readTrailers();
      default:
        this.#emit(this.#take(this.#pending.length));
        return false;
    }
  }

  #readHead(): boolean {
    const end = this.#pending.indexOf(emptyLine);
    if (end < 0) return false;
    const lines = this.#take(end + emptyLine.length)
      .toString("latin1", 0, end)
      .split("\r\n");
    const statusLine = lines[0] ?? "";
    const status = Number(statusLine.slice(9, 12));
    const headers = new Headers();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers.append(line.slice(0, colon), line.slice(colon + 1).trim());
    }
    if (status >= 100 && status < 200) return true;
    const init = { status, statusText: statusLine.slice(13), headers };
    if (this.#isHeadRequest || status === 204 || status === 304) {
      this.#resolve(new Response(null, init));
      this.#finish();
      return false;
    }
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        if (this.settled) return;
        this.#state = stateFailed;
        this.#events.cancelled();
        this.#events.settled();
      },
    });
    this.#resolve(new Response(body, init));
    const length = headers.get("content-length");
    if (headers.get("transfer-encoding")?.toLowerCase().endsWith("chunked")) {
      this.#state = stateChunkSize;
    } else if (length !== null) {
      this.#remaining = Number(length);
      this.#state = stateLength;
      if (this.#remaining === 0) this.#finish();
    } else {
      this.#state = stateUntilClose;
    }
    return true;
  }

  #readData(): boolean {
    if (this.#pending.length === 0) return false;
    const data = this.#take(Math.min(this.#remaining, this.#pending.length));
    this.#remaining -= data.length;
    this.#emit(data);
    if (this.#remaining > 0) return false;
    if (this.#state === stateLength) this.#finish();
    else this.#state = stateChunkEnd;
    return true;
  }

  #readChunkSize(): boolean {
    const end = this.#pending.indexOf(crlf);
    if (end < 0) return false;
    const line = this.#take(end + crlf.length).toString("latin1", 0, end);
    const semicolon = line.indexOf(";");
    const size = Number.parseInt(semicolon < 0 ? line : line.slice(0, semicolon), 16);
    if (!Number.isInteger(size) || size < 0) {
      this.fail(new Error(`corral: the engine sent an invalid chunk-size line: ${line}`));
      return false;
    }
    this.#remaining = size;
    this.#state = size === 0 ? stateTrailers : stateChunkData;
    return true;
  }

  #readChunkEnd(): boolean {
    if (this.#pending.length < crlf.length) return false;
    this.#take(crlf.length);
    this.#state = stateChunkSize;
    return true;
  }

  #readTrailers(): boolean {
    const end = this.#pending.indexOf(crlf);
    if (end < 0) return false;
    this.#take(end + crlf.length);
    // The empty line ends the trailer section (RFC 9112 §7.1.2); trailer fields are dropped.
    if (end === 0) this.#finish();
    return true;
  }

  #take(length: number): Buffer {
    const taken = this.#pending.subarray(0, length);
    this.#pending = this.#pending.subarray(length);
    return taken;
  }

  #emit(data: Buffer): void {
    if (data.length > 0) {
      this.#controller?.enqueue(new Uint8Array(data.buffer, data.byteOffset, data.length));
    }
  }

  #finish(): void {
    this.#state = stateDone;
    this.#controller?.close();
    this.#events.settled();
  }
}
