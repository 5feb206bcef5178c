import { EncodedMessage } from "corral/engine";
import type { AppWebSocket } from "./app-websocket.ts";

/** Carries publishes to other processes (see `RedisRoomBridge`). */
export interface RoomBridge {
  /** Sends a publish made here to the other processes. */
  forward(room: string, message: string | Uint8Array): void;
}

/** Counters of the rooms of one process. */
export interface RoomStats {
  /** Rooms with at least one member here. */
  readonly rooms: number;
  /** Publishes made (here, or received from other processes). */
  readonly publishes: number;
  /** Messages queued to members here (a publish counts once per member). */
  readonly deliveries: number;
  /** Deliveries a member's socket refused (over its outbound cap, or closing). */
  readonly refused: number;
}

/** Longest room name, in UTF-16 code units: names are map keys and go to Redis. */
export const maxRoomNameLength = 256;

/**
 * Rooms (topics) of WebSockets in one process. A publish encodes the message once and queues
 * that one frame to every member (by reference; up to 2 KiB copied into the member's reserved
 * output batch when more output waits with it); each member's socket writes it with its other
 * output once per turn. A member too slow to take it is handled by its route's outbound policy,
 * never by slowing the others. With a bridge, publishes also reach the members
 * connected to other processes and machines.
 *
 * @example
 * app.ws("/chat", { open: (socket) => socket.subscribe("lobby"), message: (socket, text) => socket.publish("lobby", text) });
 */
export class Rooms {
  readonly #rooms = new Map<string, Set<AppWebSocket<unknown, unknown>>>();
  readonly #maxRoomsPerSocket: number;
  #bridge: RoomBridge | null = null;
  #publishes = 0;
  #deliveries = 0;
  #refused = 0;

  constructor(maxRoomsPerSocket = 64) {
    this.#maxRoomsPerSocket = maxRoomsPerSocket;
  }

  /** Connects the rooms to other processes; once. */
  bridge(bridge: RoomBridge): void {
    if (this.#bridge !== null) throw new TypeError("corral: the rooms have a bridge already");
    this.#bridge = bridge;
  }

  /** Adds `socket` to `room`; a TypeError past `maxRoomsPerSocket` or for a bad name. */
  join(room: string, socket: AppWebSocket<unknown, unknown>): void {
    assertRoomName(room);
    if (socket.joined.has(room)) return;
    if (socket.joined.size >= this.#maxRoomsPerSocket) {
      throw new TypeError(`corral: a WebSocket may join at most ${this.#maxRoomsPerSocket} rooms`);
    }
    let members = this.#rooms.get(room);
    if (members === undefined) {
      members = new Set();
      this.#rooms.set(room, members);
    }
    members.add(socket);
    socket.joinedRooms().add(room);
  }

  /** Removes `socket` from `room`. */
  leave(room: string, socket: AppWebSocket<unknown, unknown>): void {
    if (!socket.joined.has(room)) return;
    socket.joinedRooms().delete(room);
    const members = this.#rooms.get(room);
    if (members === undefined) return;
    members.delete(socket);
    if (members.size === 0) this.#rooms.delete(room);
  }

  /** Removes `socket` from every room (it closed). */
  leaveAll(socket: AppWebSocket<unknown, unknown>): void {
    for (const room of socket.joined) this.leave(room, socket);
  }

  /** Members of `room` in this process. */
  size(room: string): number {
    return this.#rooms.get(room)?.size ?? 0;
  }

  /**
   * Sends `message` to every member of `room` here and, with a bridge, everywhere else; returns
   * how many members here it was queued for.
   */
  publish(room: string, message: string | Uint8Array): number {
    assertRoomName(room);
    const delivered = this.deliver(room, message);
    this.#bridge?.forward(room, message);
    return delivered;
  }

  /** Delivers to the members here only (a publish that came from another process). */
  deliver(room: string, message: string | Uint8Array): number {
    this.#publishes++;
    const members = this.#rooms.get(room);
    if (members === undefined) return 0;
    const encoded = EncodedMessage.of(message);
    let delivered = 0;
    for (const member of members) {
      if (member.sendEncoded(encoded) === "refused") this.#refused++;
      else delivered++;
    }
    this.#deliveries += delivered;
    return delivered;
  }

  stats(): RoomStats {
    return {
      rooms: this.#rooms.size,
      publishes: this.#publishes,
      deliveries: this.#deliveries,
      refused: this.#refused,
    };
  }
}

function assertRoomName(room: string): void {
  if (typeof room !== "string" || room.length === 0 || room.length > maxRoomNameLength) {
    throw new TypeError(`corral: a room name is a string of 1 to ${maxRoomNameLength} characters`);
  }
}
