import { RawClient } from "./raw-client.ts";
import { clientFrame, readServerFrames, type ServerFrame } from "./websocket-frames.ts";

/** A handshake request with a fixed key; `extra` adds header lines. */
export function handshakeRequest(path = "/", extra: Record<string, string> = {}): string {
  const { Host: host = "127.0.0.1", ...others } = extra;
  const lines = Object.entries(others).map(([name, value]) => `${name}: ${value}\r\n`);
  return (
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${lines.join("")}\r\n`
  );
}

/**
 * A raw WebSocket client for conformance tests: exact bytes out, every frame in, and the close
 * of the TCP connection observed.
 */
export class RawWebSocket {
  readonly raw: RawClient;
  /** The response head to the handshake (status line and headers as text). */
  readonly head: string;
  readonly #headLength: number;

  private constructor(raw: RawClient, head: string, headLength: number) {
    this.raw = raw;
    this.head = head;
    this.#headLength = headLength;
  }

  /** Connects and upgrades; fails when the answer is not a 101. */
  static async open(
    port: number,
    path = "/",
    extra: Record<string, string> = {},
  ): Promise<RawWebSocket> {
    const raw = await RawClient.connect(port);
    raw.send(handshakeRequest(path, extra));
    await raw.waitFor(() => raw.receivedText.includes("\r\n\r\n"), "the handshake answer");
    const end = raw.receivedText.indexOf("\r\n\r\n") + 4;
    const head = raw.receivedText.slice(0, end);
    if (!head.startsWith("HTTP/1.1 101 ")) throw new Error(`no 101: ${head}`);
    return new RawWebSocket(raw, head, end);
  }

  /** Frames received after the 101, so far. */
  frames(): ServerFrame[] {
    return readServerFrames(this.raw.received.subarray(this.#headLength)).frames;
  }

  /** Waits until `count` frames came. */
  async waitFrames(count: number, timeoutMs = 5000): Promise<ServerFrame[]> {
    await this.raw.waitFor(() => this.frames().length >= count, `${count} frames`, timeoutMs);
    return this.frames();
  }

  /** Sends a masked frame. */
  sendFrame(opcode: number, payload: string | Uint8Array = "", final = true): void {
    this.raw.send(clientFrame(opcode, payload, { final }));
  }

  /** Sends raw bytes. */
  sendBytes(bytes: Uint8Array): void {
    this.raw.send(bytes);
  }

  /** Waits until the server closed the TCP connection. */
  async waitClosed(timeoutMs = 5000): Promise<void> {
    await this.raw.waitForClose(timeoutMs);
  }

  get closed(): boolean {
    return this.raw.closed;
  }

  destroy(): void {
    this.raw.destroy();
  }

  [Symbol.dispose](): void {
    this.raw.destroy();
  }
}

const decoder = new TextDecoder();

/** A frame as [opcode, text]; a close frame as [8, code, reason]. */
export function describeFrame(frame: ServerFrame): readonly unknown[] {
  if (frame.opcode === 8) {
    if (frame.payload.length < 2) return [8];
    return [
      8,
      (frame.payload[0]! << 8) | frame.payload[1]!,
      decoder.decode(frame.payload.subarray(2)),
    ];
  }
  return [frame.opcode, decoder.decode(frame.payload)];
}
