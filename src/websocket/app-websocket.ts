import type { EncodedMessage, SendResult, WebSocketSession } from "corral/engine";
import type { Rooms } from "./rooms.ts";

/**
 * One open WebSocket as the App's handlers see it: typed per-connection `data` (what the
 * route's `upgrade` returned) and path `params`, sending with backpressure, rooms, and close.
 *
 * @example
 * app.ws("/chat/:room", {
 *   upgrade: (ctx) => ({ user: ctx.locals.user }),
 *   open(socket) { socket.subscribe(socket.params.room); },
 *   message(socket, message) { socket.publish(socket.params.room, `${socket.data.user}: ${message}`); },
 * });
 */
export class AppWebSocket<Data = undefined, Params = Readonly<Record<string, string>>> {
  /** What the route's `upgrade` returned for this connection. */
  data: Data;
  /** The path captures of the upgrade request. */
  readonly params: Params;
  /** The client's address at upgrade time (undefined in memory). */
  readonly remoteAddress: string | undefined;
  #session: WebSocketSession | null = null;
  readonly #rooms: Rooms;
  /** Made on the first join: most sockets of an echo or a feed never join a room. */
  #joined: Set<string> | undefined;
  #closed = false;

  /** @internal Made by the App at upgrade. */
  constructor(rooms: Rooms, data: Data, params: Params, remoteAddress: string | undefined) {
    this.#rooms = rooms;
    this.data = data;
    this.params = params;
    this.remoteAddress = remoteAddress;
  }

  /** Rooms this socket joined: left when it closes. */
  get joined(): ReadonlySet<string> {
    return this.#joined ?? noRooms;
  }

  /** Whether the socket has closed (its close callback ran): it is in no room and joins none. */
  get closed(): boolean {
    return this.#closed;
  }

  /** @internal The socket closed: it leaves its rooms now and can join none after. */
  markClosed(): void {
    this.#closed = true;
  }

  /** @internal The rooms set that `Rooms` changes. */
  joinedRooms(): Set<string> {
    this.#joined ??= new Set();
    return this.#joined;
  }

  /** @internal The engine's session, once upgraded. */
  attach(session: WebSocketSession): void {
    this.#session = session;
  }

  /** The subprotocol agreed at the handshake, or "". */
  get protocol(): string {
    return this.#session?.protocol ?? "";
  }

  /** Whether messages may still be sent. */
  get isOpen(): boolean {
    return this.#session?.open === true;
  }

  /** Bytes queued for this client and not yet taken by its socket. */
  get bufferedBytes(): number {
    return this.#session?.bufferedBytes ?? 0;
  }

  /**
   * Sends a text (string) or binary (bytes, copied) message. "queued", "backpressured" (wait
   * for `drain` before sending more) or "refused" (over the route's `maxOutboundBytes`: the
   * route's `outboundPolicy` applied; or the socket is closing).
   */
  send(message: string | Uint8Array): SendResult {
    return this.#session?.send(message) ?? "refused";
  }

  /** Sends a message encoded once for many. */
  sendEncoded(message: EncodedMessage): SendResult {
    return this.#session?.sendEncoded(message) ?? "refused";
  }

  /** Starts the closing handshake; `code` 1000 by default (a TypeError for codes not sendable). */
  close(code?: number, reason?: string): void {
    this.#session?.close(code, reason);
  }

  /** Drops the connection without a closing handshake. */
  terminate(): void {
    this.#session?.terminate();
  }

  /**
   * Joins a room: `publish(room, …)` anywhere reaches this socket until it leaves or closes.
   * True when the socket is a member; false, joining nothing, once it has closed (a handler
   * still awaiting when its client left, say). A `RangeError` past the App's room limits.
   */
  subscribe(room: string): boolean {
    return this.#rooms.join(room, this);
  }

  /** Leaves a room. */
  unsubscribe(room: string): void {
    this.#rooms.leave(room, this);
  }

  /** Publishes to every member of `room` (this socket included when it is a member). */
  publish(room: string, message: string | Uint8Array): number {
    return this.#rooms.publish(room, message);
  }
}

const noRooms: ReadonlySet<string> = new Set<string>();
