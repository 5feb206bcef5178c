import type { Socket } from "bun";

/** A parsed HTTP/1.1 response as read off the wire. */
export interface WireResponse {
  readonly statusLine: string;
  readonly status: number;
  /** Header lines in order, names lower-cased. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Uint8Array;
  readonly text: string;
  header(name: string): string | undefined;
}

/**
 * A raw TCP client for tests: sends exact bytes, collects every byte received, and parses
 * responses out of them (Content-Length, chunked, or until close).
 */
export class RawClient {
  readonly #socket: Socket<undefined>;
  #storage = new Uint8Array(0);
  #length = 0;
  #closed = false;
  #waiters: Array<() => void> = [];
  /** Sizes of the data events received, in order (to count parts of a stream). */
  readonly chunkSizes: number[] = [];

  private constructor(socket: Socket<undefined>) {
    this.#socket = socket;
  }

  /**
   * Opens `count` hostile connections that stop reading at once and keep pushing `bytes`
   * (pipelined requests) until the server stops taking them.
   */
  static async nonReaders(port: number, count: number, bytes: Uint8Array): Promise<RawClient[]> {
    const clients: RawClient[] = [];
    for (let index = 0; index < count; index++) {
      const client = await RawClient.connect(port);
      client.stopReading();
      client.push(bytes);
      clients.push(client);
    }
    return clients;
  }

  /** Connects to `hostname` (127.0.0.1 unless given) on `port`. */
  static async connect(port: number, hostname = "127.0.0.1"): Promise<RawClient> {
    let client: RawClient | undefined;
    const pending: Uint8Array[] = [];
    let closedEarly = false;
    const socket = await Bun.connect<undefined>({
      hostname,
      port,
      socket: {
        data(_socket, data) {
          if (client) client.#append(data);
          else pending.push(new Uint8Array(data));
        },
        close() {
          if (client) client.#markClosed();
          else closedEarly = true;
        },
        end() {
          if (client) client.#markClosed();
          else closedEarly = true;
        },
        error() {
          if (client) client.#markClosed();
          else closedEarly = true;
        },
      },
    });
    client = new RawClient(socket);
    for (const data of pending) client.#append(data);
    if (closedEarly) client.#markClosed();
    return client;
  }

  #append(data: Uint8Array): void {
    this.chunkSizes.push(data.length);
    const needed = this.#length + data.length;
    if (needed > this.#storage.length) {
      // Doubling keeps large downloads linear.
      const grown = new Uint8Array(Math.max(needed, this.#storage.length * 2, 4096));
      grown.set(this.#storage.subarray(0, this.#length), 0);
      this.#storage = grown;
    }
    this.#storage.set(data, this.#length);
    this.#length = needed;
    this.#wake();
  }

  #markClosed(): void {
    this.#closed = true;
    this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** The client's own TCP port: what the server sees as the peer's port. */
  get localPort(): number {
    return this.#socket.localPort;
  }

  /** Whether the server closed the connection. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Every byte received so far. */
  get received(): Uint8Array {
    return this.#storage.subarray(0, this.#length);
  }

  /** Everything received so far, as Latin-1 text. */
  get receivedText(): string {
    return Buffer.from(this.received).toString("latin1");
  }

  /**
   * Sends bytes or Latin-1 text as they are. What the kernel does not take at once (its buffer is
   * full, as after a large `sendAll`) is sent in the background, in order with later `send`s:
   * dropping it would leave the server waiting for bytes the test believes it sent.
   */
  send(data: string | Uint8Array): void {
    const bytes = typeof data === "string" ? Buffer.from(data, "latin1") : data;
    if (this.#backlog !== null) {
      this.#sendLater(bytes);
      return;
    }
    let offset = 0;
    while (offset < bytes.length) {
      const written = this.#socket.write(bytes, offset, bytes.length - offset);
      if (written < 0) return;
      if (written === 0) {
        this.#sendLater(bytes.subarray(offset));
        return;
      }
      offset += written;
    }
  }

  /** Bytes `send` could not write at once, still being sent; null when none wait. */
  #backlog: Promise<void> | null = null;

  #sendLater(bytes: Uint8Array): void {
    const sent = (this.#backlog ?? Promise.resolve())
      .then(() => this.sendAll(bytes))
      .catch(() => {})
      .then(() => {
        if (this.#backlog === sent) this.#backlog = null;
      });
    this.#backlog = sent;
  }

  /** Bytes `sendAll` and `push` have written so far. */
  bytesSent = 0;

  /** Sends data that may be larger than the socket buffer, waiting for room. */
  async sendAll(data: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < data.length) {
      const written = this.#socket.write(data, offset, data.length - offset);
      if (written < 0) throw new Error("socket closed while sending");
      offset += written;
      this.bytesSent += written;
      if (offset < data.length) await Bun.sleep(1);
    }
  }

  /** Stops reading: the kernel buffers fill and the server's writes block (a hostile reader). */
  stopReading(): void {
    this.#socket.pause();
  }

  /** Reads again after `stopReading()`. */
  resumeReading(): void {
    this.#socket.resume();
  }

  /** Sends `data` in the background without awaiting it (a client that keeps pushing). */
  push(data: Uint8Array): void {
    this.sendAll(data).catch(() => {});
  }

  /** Half-closes (sends FIN). */
  end(): void {
    this.#socket.end();
  }

  /** Closes abruptly. */
  destroy(): void {
    this.#socket.terminate();
  }

  /** Waits until `condition` holds on what was received, or fails after `timeoutMs`. */
  async waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) {
        throw new Error(
          `timed out waiting for ${what}; received: ${JSON.stringify(this.receivedText.slice(0, 600))}`,
        );
      }
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 20);
      });
    }
  }

  /** Waits until the server closes the connection. */
  async waitForClose(timeoutMs = 5000): Promise<void> {
    await this.waitFor(() => this.#closed, "the connection to close", timeoutMs);
  }

  /** Waits for `count` complete responses and returns them. */
  async responses(count: number, timeoutMs = 5000): Promise<WireResponse[]> {
    let parsed: WireResponse[] = [];
    await this.waitFor(
      () => {
        parsed = parseResponses(this.received, this.#closed);
        return parsed.length >= count || this.#closed;
      },
      `${count} responses`,
      timeoutMs,
    );
    parsed = parseResponses(this.received, this.#closed);
    if (parsed.length < count) {
      throw new Error(
        `expected ${count} responses, got ${parsed.length}: ${JSON.stringify(this.receivedText.slice(0, 600))}`,
      );
    }
    return parsed;
  }

  /** Waits for one response. */
  async response(timeoutMs = 5000): Promise<WireResponse> {
    const [first] = await this.responses(1, timeoutMs);
    return first!;
  }

  [Symbol.dispose](): void {
    if (!this.#closed) this.#socket.terminate();
  }
}

/** Parses every complete response in `bytes`; a close-delimited body completes when `closed`. */
export function parseResponses(bytes: Uint8Array, closed: boolean): WireResponse[] {
  const text = Buffer.from(bytes).toString("latin1");
  const responses: WireResponse[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const headEnd = text.indexOf("\r\n\r\n", offset);
    if (headEnd < 0) break;
    const lines = text.slice(offset, headEnd).split("\r\n");
    const statusLine = lines[0]!;
    const status = Number(statusLine.split(" ")[1]);
    const headers = lines.slice(1).map((line): [string, string] => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    });
    const find = (name: string) => headers.find(([key]) => key === name.toLowerCase())?.[1];
    let bodyStart = headEnd + 4;
    let body: Uint8Array;
    const length = find("content-length");
    if (status < 200 || status === 204 || status === 304) {
      body = new Uint8Array(0);
    } else if (find("transfer-encoding")?.toLowerCase() === "chunked") {
      const parts: Uint8Array[] = [];
      let at = bodyStart;
      let complete = false;
      while (true) {
        const lineEnd = text.indexOf("\r\n", at);
        if (lineEnd < 0) break;
        const size = Number.parseInt(text.slice(at, lineEnd).split(";")[0]!, 16);
        if (size === 0) {
          const trailerEnd = text.indexOf("\r\n\r\n", lineEnd);
          if (trailerEnd < 0) break;
          at = trailerEnd + 4;
          complete = true;
          break;
        }
        if (lineEnd + 2 + size + 2 > bytes.length) break;
        parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      if (!complete) break;
      body = Buffer.concat(parts);
      bodyStart = at;
    } else if (length !== undefined) {
      if (bodyStart + Number(length) > bytes.length) break;
      body = bytes.subarray(bodyStart, bodyStart + Number(length));
      bodyStart += Number(length);
    } else {
      if (!closed) break;
      body = bytes.subarray(bodyStart);
      bodyStart = bytes.length;
    }
    responses.push({
      statusLine,
      status,
      headers,
      body,
      text: Buffer.from(body).toString("utf8"),
      header: find,
    });
    offset = bodyStart;
  }
  return responses;
}

/**
 * Sends `bytes` cut at `cuts` (sorted offsets), a millisecond apart, so that each piece comes to
 * the server as a read of its own.
 */
export async function sendInPieces(
  send: (piece: Uint8Array) => void,
  bytes: Uint8Array,
  cuts: readonly number[],
): Promise<void> {
  let start = 0;
  for (const cut of cuts) {
    send(bytes.subarray(start, cut));
    start = cut;
    await Bun.sleep(1);
  }
  send(bytes.subarray(start));
}
