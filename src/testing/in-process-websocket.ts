import type { Engine, MemoryConnection } from "corral/engine";

/** Options of `app.connectWebSocket()`. */
export interface InProcessWebSocketOptions {
  /** Extra request headers (`Origin`, `Cookie`, `Authorization`, …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Subprotocols to offer. */
  readonly protocols?: readonly string[];
}

/** How an in-process WebSocket ended. */
export interface InProcessClose {
  /** The server's close code; 1006 when the connection ended without a close frame. */
  readonly code: number;
  readonly reason: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A WebSocket client in memory, for an App's own tests: it runs the whole upgrade (middleware,
 * origin, `upgrade`) and every frame through the engine as a socket would, with no port.
 *
 * @example
 * const socket = await app.connectWebSocket("/echo");
 * socket.send("hi");
 * expect(await socket.next()).toBe("hi");
 * socket.close();
 */
export class InProcessWebSocket {
  /** The 101's header lines, names lower-cased. */
  readonly headers: ReadonlyMap<string, string>;
  readonly #connection: MemoryConnection;
  readonly #messages: Array<string | Uint8Array> = [];
  readonly #waiters: Array<(message: string | Uint8Array | undefined) => void> = [];
  #fragments: Uint8Array[] = [];
  #fragmentText = false;
  #ended = false;
  #closeSent = false;
  readonly closed: Promise<InProcessClose>;
  #resolveClosed: (close: InProcessClose) => void = () => {};
  #close: InProcessClose = { code: 1006, reason: "" };

  /** @internal */
  constructor(connection: MemoryConnection, headers: ReadonlyMap<string, string>) {
    this.#connection = connection;
    this.headers = headers;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  /** Sends a text (string) or binary message, masked as a client must. */
  send(message: string | Uint8Array): void {
    const isText = typeof message === "string";
    this.#connection.send(maskedFrame(isText ? 1 : 2, isText ? encoder.encode(message) : message));
  }

  /** Starts the closing handshake. */
  close(code = 1000, reason = ""): void {
    if (this.#closeSent) return;
    this.#closeSent = true;
    const text = encoder.encode(reason);
    const payload = new Uint8Array(2 + text.length);
    payload[0] = code >>> 8;
    payload[1] = code & 0xff;
    payload.set(text, 2);
    this.#connection.send(maskedFrame(8, payload));
  }

  /** The next message from the server; rejects once the socket closed with none left. */
  next(): Promise<string | Uint8Array> {
    const message = this.#messages.shift();
    if (message !== undefined) return Promise.resolve(message);
    if (this.#ended) return Promise.reject(new Error("corral: the WebSocket is closed"));
    return new Promise((resolve, reject) => {
      this.#waiters.push((next) =>
        next === undefined ? reject(new Error("corral: the WebSocket is closed")) : resolve(next),
      );
    });
  }

  /** @internal A whole server frame. */
  frame(opcode: number, final: boolean, payload: Uint8Array): void {
    if (opcode === 8) {
      const code = payload.length >= 2 ? (payload[0]! << 8) | payload[1]! : 1005;
      this.#close = { code, reason: decoder.decode(payload.subarray(2)) };
      // RFC 6455 §5.5.1: a close the client did not start is answered with the same code.
      if (!this.#closeSent) {
        const echo = maskedFrame(8, payload.subarray(0, 2));
        queueMicrotask(() => this.#connection.send(echo));
      }
      this.#closeSent = true;
      return;
    }
    if (opcode === 9) {
      this.#connection.send(maskedFrame(10, payload));
      return;
    }
    if (opcode === 10) return;
    if (opcode !== 0) {
      this.#fragments = [];
      this.#fragmentText = opcode === 1;
    }
    this.#fragments.push(payload);
    if (!final) return;
    const whole = Buffer.concat(this.#fragments);
    this.#fragments = [];
    const message = this.#fragmentText ? decoder.decode(whole) : new Uint8Array(whole);
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter(message);
    else this.#messages.push(message);
  }

  /** @internal The engine closed the connection. */
  ended(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
    this.#resolveClosed(this.#close);
  }
}

/** A client frame with a random mask (RFC 6455 §5.3). */
function maskedFrame(opcode: number, payload: Uint8Array): Uint8Array {
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length < 0x1_0000 ? 2 : 8;
  const frame = new Uint8Array(2 + lengthBytes + 4 + length);
  frame[0] = 0x80 | opcode;
  frame[1] = 0x80 | (lengthBytes === 0 ? length : lengthBytes === 2 ? 126 : 127);
  const view = new DataView(frame.buffer);
  if (lengthBytes === 2) view.setUint16(2, length);
  else if (lengthBytes === 8) view.setBigUint64(2, BigInt(length));
  const maskAt = 2 + lengthBytes;
  crypto.getRandomValues(frame.subarray(maskAt, maskAt + 4));
  for (let index = 0; index < length; index++) {
    frame[maskAt + 4 + index] = payload[index]! ^ frame[maskAt + (index & 3)]!;
  }
  return frame;
}

/**
 * Opens a WebSocket to `engine` in memory; resolves at the 101, rejects with the status when
 * the upgrade is refused.
 */
export function openInProcessWebSocket(
  engine: Engine,
  path: string,
  options: InProcessWebSocketOptions = {},
): Promise<InProcessWebSocket> {
  const lines = [
    `GET ${path} HTTP/1.1`,
    "Host: localhost",
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Key: ${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64")}`,
    "Sec-WebSocket-Version: 13",
  ];
  if (options.protocols?.length)
    lines.push(`Sec-WebSocket-Protocol: ${options.protocols.join(", ")}`);
  for (const [name, value] of Object.entries(options.headers ?? {}))
    lines.push(`${name}: ${value}`);
  return new Promise((resolve, reject) => {
    let buffered: Uint8Array = new Uint8Array(0);
    let socket: InProcessWebSocket | undefined;
    const connection = engine.connectInMemory(
      (bytes) => {
        buffered = Buffer.concat([buffered, bytes]);
        if (socket === undefined) {
          const end = Buffer.from(buffered).indexOf("\r\n\r\n");
          if (end < 0) return;
          const head = Buffer.from(buffered.subarray(0, end)).toString("latin1").split("\r\n");
          const status = Number(head[0]!.split(" ")[1]);
          if (status !== 101) {
            reject(
              Object.assign(new Error(`corral: the upgrade was refused with ${status}`), {
                status,
              }),
            );
            connection?.close();
            return;
          }
          const headers = new Map(
            head.slice(1).map((line) => {
              const colon = line.indexOf(":");
              return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
            }),
          );
          socket = new InProcessWebSocket(connection!, headers);
          buffered = buffered.subarray(end + 4);
          resolve(socket);
        }
        buffered = readFrames(buffered, socket);
      },
      () => {
        if (socket === undefined) reject(new Error("corral: the connection closed before a 101"));
        else socket.ended();
      },
    );
    connection.send(encoder.encode(`${lines.join("\r\n")}\r\n\r\n`));
  });
}

/** Hands every whole server frame in `bytes` to `socket`; returns the rest. */
function readFrames(bytes: Uint8Array, socket: InProcessWebSocket): Uint8Array {
  let at = 0;
  for (;;) {
    if (bytes.length - at < 2) break;
    const short = bytes[at + 1]! & 0x7f;
    const header = short < 126 ? 2 : short === 126 ? 4 : 10;
    if (bytes.length - at < header) break;
    const view = new DataView(bytes.buffer, bytes.byteOffset + at);
    const length =
      short < 126 ? short : short === 126 ? view.getUint16(2) : Number(view.getBigUint64(2));
    if (bytes.length - at < header + length) break;
    const first = bytes[at]!;
    socket.frame(
      first & 0x0f,
      (first & 0x80) !== 0,
      bytes.slice(at + header, at + header + length),
    );
    at += header + length;
  }
  return bytes.subarray(at);
}
