import { EncodedMessage } from "corral/engine";
import type { AppWebSocket } from "./app-websocket.ts";

/** Carries publishes to other processes (see `RedisRoomBridge`). */
export interface RoomBridge {
  /** Sends a publish made here to the other processes. */
  forward(room: string, message: string | Uint8Array): void;
}

/**
 * The bounds of an App's rooms, part of its limits. Rooms live in the JavaScript heap, outside
 * the reservation: these bound what sockets that join many rooms of long names can make them
 * hold (about 720 bytes of resident memory a membership at worst, each in a room of its own
 * with a name of 256 characters).
 */
export interface RoomLimits {
  /** Rooms one WebSocket may be a member of at once. */
  readonly maxRoomsPerSocket: number;
  /** Memberships of every socket in every room of this process, together. */
  readonly maxRoomMemberships: number;
  /** The longest room name, in UTF-16 code units (names are map keys and go to Redis). */
  readonly maxRoomNameLength: number;
}

/** Defaults of `RoomLimits`. */
export const defaultRoomLimits: RoomLimits = Object.freeze({
  maxRoomsPerSocket: 64,
  maxRoomMemberships: 16_384,
  maxRoomNameLength: 256,
});

/** Counters of the rooms of one process. */
export interface RoomStats {
  /** Rooms with at least one member here. */
  readonly rooms: number;
  /** Memberships now: every socket in every room here (bounded by `maxRoomMemberships`). */
  readonly memberships: number;
  /** Joins refused at a limit (`maxRoomsPerSocket`, `maxRoomMemberships`, `maxRoomNameLength`). */
  readonly joinsRefused: number;
  /** Publishes made (here, or received from other processes). */
  readonly publishes: number;
  /** Messages queued to members here (a publish counts once per member). */
  readonly deliveries: number;
  /** Deliveries a member's socket refused (over its outbound cap, or closing). */
  readonly refused: number;
}

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
  readonly #limits: RoomLimits;
  #bridge: RoomBridge | null = null;
  #memberships = 0;
  #joinsRefused = 0;
  #publishes = 0;
  #deliveries = 0;
  #refused = 0;

  /** The App makes its rooms with its own limits (`app.rooms`). */
  constructor(limits: RoomLimits = defaultRoomLimits) {
    this.#limits = limits;
  }

  /** Connects the rooms to other processes; once. */
  bridge(bridge: RoomBridge): void {
    if (this.#bridge !== null) throw new TypeError("corral: the rooms have a bridge already");
    this.#bridge = bridge;
  }

  /**
   * Adds `socket` to `room`; false, adding nothing, when the socket has closed (it left every
   * room as it closed, and a membership made after would never be left). A `RangeError` naming
   * the limit, counted in `joinsRefused`, when the socket is in `maxRoomsPerSocket` rooms
   * already, the process holds `maxRoomMemberships`, or the name is longer than
   * `maxRoomNameLength`; a `TypeError` for an empty name.
   */
  join(room: string, socket: AppWebSocket<unknown, unknown>): boolean {
    this.#assertName(room, true);
    if (socket.closed) return false;
    if (socket.joined.has(room)) return true;
    const { maxRoomsPerSocket, maxRoomMemberships } = this.#limits;
    if (socket.joined.size >= maxRoomsPerSocket) {
      this.#joinsRefused++;
      throw new RangeError(
        `corral: a WebSocket may be in at most ${maxRoomsPerSocket} rooms (maxRoomsPerSocket)`,
      );
    }
    if (this.#memberships >= maxRoomMemberships) {
      this.#joinsRefused++;
      throw new RangeError(
        `corral: the rooms hold ${maxRoomMemberships} memberships already (maxRoomMemberships)`,
      );
    }
    this.#memberships++;
    let members = this.#rooms.get(room);
    if (members === undefined) {
      members = new Set();
      this.#rooms.set(room, members);
    }
    members.add(socket);
    socket.joinedRooms().add(room);
    return true;
  }

  /** Removes `socket` from `room`. */
  leave(room: string, socket: AppWebSocket<unknown, unknown>): void {
    if (!socket.joined.has(room)) return;
    socket.joinedRooms().delete(room);
    this.#memberships--;
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
    this.#assertName(room, false);
    // Neither text nor bytes: encoding it throws the engine's TypeError, before a bridge could
    // forward it to the other processes (a room without members here encodes nothing).
    if (typeof message !== "string" && !(message instanceof Uint8Array)) EncodedMessage.of(message);
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

  /** The counters now. */
  stats(): RoomStats {
    return {
      rooms: this.#rooms.size,
      memberships: this.#memberships,
      joinsRefused: this.#joinsRefused,
      publishes: this.#publishes,
      deliveries: this.#deliveries,
      refused: this.#refused,
    };
  }

  #assertName(room: string, joining: boolean): void {
    if (typeof room !== "string" || room.length === 0) {
      throw new TypeError("corral: a room name is a non-empty string");
    }
    const { maxRoomNameLength } = this.#limits;
    if (room.length > maxRoomNameLength) {
      if (joining) this.#joinsRefused++;
      throw new RangeError(
        `corral: a room name is at most ${maxRoomNameLength} characters (maxRoomNameLength), got ${room.length}`,
      );
    }
  }
}
