import type { Socket } from "bun";
import { ResponseReader } from "./response-reader.ts";

/** What a connection does with what it receives. */
export interface RawConnectionHandlers {
  /** Each complete response's status; without it, received bytes are dropped unparsed. */
  readonly onResponse?: (status: number) => void;
  /** The connection closed (either side) or failed. */
  readonly onClose?: () => void;
}

/**
 * One raw TCP client connection to 127.0.0.1 for the abuse scenario: it sends exact bytes
 * (keeping what the kernel did not take and going on at `drain`, since Bun keeps nothing),
 * can stop reading (`pause()`: the server's writes to it then block once the kernel buffers
 * are full) and can keep writing the same bytes for as long as it is open.
 */
export class RawConnection {
  readonly #socket: Socket<undefined>;
  readonly #queue: Uint8Array[] = [];
  #offset = 0;
  #repeated: Uint8Array | null = null;
  #closed = false;
  #bytesSent = 0;

  private constructor(socket: Socket<undefined>) {
    this.#socket = socket;
  }

  /** Connects; rejects when the connection is refused. */
  static async open(port: number, handlers: RawConnectionHandlers = {}): Promise<RawConnection> {
    let connection: RawConnection | undefined;
    let closedEarly = false;
    const reader = handlers.onResponse === undefined ? null : new ResponseReader();
    const closed = () => {
      if (connection === undefined) {
        closedEarly = true;
      } else if (!connection.#closed) {
        connection.#closed = true;
        handlers.onClose?.();
      }
    };
    const socket = await Bun.connect<undefined>({
      hostname: "127.0.0.1",
      port,
      socket: {
        data(_socket, bytes) {
          if (reader === null) return;
          for (const status of reader.push(bytes)) handlers.onResponse!(status);
        },
        drain() {
          if (connection !== undefined) connection.#flush();
        },
        close: closed,
        end: closed,
        error: closed,
      },
    });
    connection = new RawConnection(socket);
    if (closedEarly) closed();
    return connection;
  }

  /** Whether the connection is closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes the kernel has taken so far. */
  get bytesSent(): number {
    return this.#bytesSent;
  }

  /** Sends `bytes` after whatever is still queued; they are not copied, so do not change them. */
  send(bytes: Uint8Array): void {
    this.#queue.push(bytes);
    this.#flush();
  }

  /** Sends `bytes` again each time the previous copy has gone, until the connection closes. */
  sendRepeatedly(bytes: Uint8Array): void {
    this.#repeated = bytes;
    this.#flush();
  }

  /** Stops reading: what the server sends piles up in the kernel buffers, then its writes block. */
  pause(): void {
    this.#socket.pause();
  }

  /** Closes abruptly (RST). */
  destroy(): void {
    this.#repeated = null;
    this.#queue.length = 0;
    if (!this.#closed) this.#socket.terminate();
    this.#closed = true;
  }

  #flush(): void {
    while (!this.#closed) {
      if (this.#queue.length === 0) {
        if (this.#repeated === null) return;
        this.#queue.push(this.#repeated);
      }
      const bytes = this.#queue[0]!;
      const written = this.#socket.write(bytes, this.#offset, bytes.length - this.#offset);
      if (written < 0) return;
      this.#bytesSent += written;
      this.#offset += written;
      // The kernel took only part: the rest goes at the next drain.
      if (this.#offset < bytes.length) return;
      this.#queue.shift();
      this.#offset = 0;
    }
  }
}

/**
 * Opens `count` connections, at most `inFlight` connects at a time (well under the listen
 * backlog). If one fails, every one opened is destroyed and the error thrown.
 */
export async function openMany(
  count: number,
  open: (index: number) => Promise<RawConnection>,
  inFlight = 128,
): Promise<RawConnection[]> {
  const connections: RawConnection[] = [];
  let next = 0;
  let failed = false;
  const opener = async () => {
    while (next < count && !failed) {
      const index = next++;
      connections[index] = await open(index);
    }
  };
  const openers = Array.from({ length: Math.min(inFlight, count) }, () =>
    opener().catch((error: unknown) => {
      failed = true;
      throw error;
    }),
  );
  // Settled, not all: connects still in flight when one fails must be closed too.
  const failure = (await Promise.allSettled(openers)).find(
    (result) => result.status === "rejected",
  );
  if (failure !== undefined) {
    for (const connection of connections) connection?.destroy();
    throw failure.reason;
  }
  return connections;
}
