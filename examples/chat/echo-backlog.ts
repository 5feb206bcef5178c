import type { AppWebSocket } from "corral";

/** The echo route's sockets, whatever their data and params. */
type EchoSocket = AppWebSocket<unknown, Readonly<Record<string, string>>>;

/**
 * The bytes queued for `/echo` clients, all sockets together, kept under one budget. A client
 * that sends and never reads keeps its echoes queued in this process, up to the route's
 * `maxOutboundBytes` (16 MiB) each: 1024 such clients could hold 16 GiB. A message whose echo
 * would take the total past the budget is not echoed: its socket is closed with 1013 (RFC 6455
 * §7.4.1, "Try Again Later"), and every other client goes on being served.
 */
export class EchoBacklog {
  /** The most bytes queued for all echo clients at once. */
  readonly budgetBytes: number;
  /** Sockets closed because the backlog was full. */
  refused = 0;
  /** Sockets with echoes queued when last seen; the rest queue nothing. */
  readonly #backlogged = new Set<EchoSocket>();

  constructor(budgetBytes: number) {
    this.budgetBytes = budgetBytes;
  }

  /** Bytes queued for echo clients now. */
  get queuedBytes(): number {
    let queued = 0;
    for (const socket of this.#backlogged) {
      const bytes = socket.bufferedBytes;
      if (bytes === 0) this.#backlogged.delete(socket);
      else queued += bytes;
    }
    return queued;
  }

  /** Echoes `message` on `socket` when the budget has room for it; closes it with 1013 if not. */
  echo(socket: EchoSocket, message: string | Uint8Array): void {
    const size = typeof message === "string" ? Buffer.byteLength(message) : message.length;
    if (this.queuedBytes + size > this.budgetBytes) {
      this.refused++;
      socket.close(1013, "echo backlog full, try again later");
      return;
    }
    socket.send(message);
    if (socket.bufferedBytes > 0) this.#backlogged.add(socket);
  }

  /** The socket closed: its queue is gone with it. */
  forget(socket: EchoSocket): void {
    this.#backlogged.delete(socket);
  }
}
