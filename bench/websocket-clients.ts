import type { Socket } from "bun";

/** A masked client frame with an all-zero mask key: valid, and no XOR cost for the generator. */
export function zeroMaskedFrame(opcode: number, payloadLength: number): Uint8Array {
  const lengthBytes = payloadLength < 126 ? 0 : payloadLength < 0x1_0000 ? 2 : 8;
  const frame = new Uint8Array(2 + lengthBytes + 4 + payloadLength).fill(0x61, 2 + lengthBytes + 4);
  frame[0] = 0x80 | opcode;
  frame[1] = 0x80 | (lengthBytes === 0 ? payloadLength : lengthBytes === 2 ? 126 : 127);
  const view = new DataView(frame.buffer);
  if (lengthBytes === 2) view.setUint16(2, payloadLength);
  else if (lengthBytes === 8) view.setBigUint64(2, BigInt(payloadLength));
  return frame;
}

/** Bytes of the server's (unmasked) frame for a payload of this length. */
export function serverFrameBytes(payloadLength: number): number {
  return payloadLength + (payloadLength < 126 ? 2 : payloadLength < 0x1_0000 ? 4 : 10);
}

const handshake = (path: string) =>
  new TextEncoder().encode(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
  );

/**
 * A lean raw-socket WebSocket client: upgrades, then counts received bytes (frames of a known
 * size are counted by bytes, no parsing), and calls `onBytes` with the running total.
 */
export interface LeanClient {
  readonly socket: Socket<undefined>;
  received: number;
  onBytes: ((received: number) => void) | null;
}

export async function openLean(port: number, path: string): Promise<LeanClient> {
  let upgraded = false;
  let head = "";
  let resolveOpen: () => void = () => {};
  let rejectOpen: (error: Error) => void = () => {};
  const opened = new Promise<void>((resolve, reject) => {
    resolveOpen = resolve;
    rejectOpen = reject;
  });
  const client = { received: 0, onBytes: null } as {
    received: number;
    onBytes: ((n: number) => void) | null;
    socket: Socket<undefined>;
  };
  client.socket = await Bun.connect<undefined>({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, data) {
        if (upgraded) {
          client.received += data.length;
          client.onBytes?.(client.received);
          return;
        }
        head += Buffer.from(data).toString("latin1");
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        if (!head.startsWith("HTTP/1.1 101")) return rejectOpen(new Error(head.split("\r\n")[0]));
        upgraded = true;
        client.received = head.length - end - 4;
        resolveOpen();
      },
      close() {
        if (!upgraded) rejectOpen(new Error("closed before the 101"));
      },
    },
  });
  client.socket.write(handshake(path));
  await opened;
  return client;
}

/** Opens `count` clients, `parallel` handshakes at a time. */
export async function openManyLean(port: number, path: string, count: number, parallel = 64) {
  const clients: LeanClient[] = [];
  for (let start = 0; start < count; start += parallel) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(parallel, count - start) }, () => openLean(port, path)),
    );
    clients.push(...batch);
  }
  return clients;
}
