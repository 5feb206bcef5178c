import { expect, test } from "bun:test";
import { App, type AppLimits, defaultRoomLimits } from "corral";
import { describeFrame, RawWebSocket } from "../../engine/test/support/websocket-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { openMember, until } from "../support/websocket-member.ts";

// Rooms live in the heap, outside the reservation: the room limits bound what sockets that join
// many rooms of long names make them hold. Each limit is tested at its boundary.

/**
 * `join:NAME` joins and answers `joined N` (the socket's rooms) or the error; `open:NAME` (the
 * route `/in/:room`) joins at open, where a refusal is not caught: a failed callback.
 */
function roomsApp(limits: Partial<AppLimits> = {}) {
  const logged: string[] = [];
  const slowJoins = { started: 0, joined: [] as boolean[] };
  const app = new App({
    shared: {},
    limits,
    log: { error: (line: unknown, error: unknown) => logged.push(`${line} ${error}`) },
  });
  app.ws("/rooms", {
    async message(socket, message) {
      const text = String(message);
      if (text.startsWith("slow:")) {
        // A join that awaits something first (a permission check, say).
        slowJoins.started++;
        await Bun.sleep(50);
        slowJoins.joined.push(socket.subscribe(text.slice(5)));
        return;
      }
      if (!text.startsWith("join:")) return;
      try {
        socket.subscribe(text.slice(5));
        socket.send(`joined ${socket.joined.size}`);
      } catch (error) {
        socket.send(String(error));
      }
    },
  });
  app.ws("/in/:room", {
    open: (socket) => socket.subscribe(socket.params.room),
    message() {},
  });
  return Object.assign(app, { logged, slowJoins });
}

/** Asks the `/rooms` route to join `room`; its answer ("joined N", or the error). */
async function join(
  socket: { send(message: string): void; next(): Promise<unknown> },
  room: string,
): Promise<unknown> {
  socket.send(`join:${room}`);
  return socket.next();
}

test("the room limits' defaults, and a limit below 1 is refused at new App()", () => {
  expect(defaultRoomLimits).toEqual({
    maxRoomsPerSocket: 64,
    maxRoomMemberships: 16_384,
    maxRoomNameLength: 256,
  });
  expect(new App({ shared: {} }).limits.maxRoomMemberships).toBe(16_384);
  for (const name of ["maxRoomsPerSocket", "maxRoomMemberships", "maxRoomNameLength"]) {
    expect(() => new App({ shared: {}, limits: { [name]: 0 } })).toThrow(
      `corral: limit ${name} must be a whole number >= 1, got 0`,
    );
  }
});

test("maxRoomsPerSocket: a socket joins exactly that many rooms; one more is a RangeError, counted", async () => {
  const app = roomsApp({ maxRoomsPerSocket: 3 });
  const socket = await app.connectWebSocket("/rooms");
  const answers: unknown[] = [];
  for (const room of ["a", "b", "c", "a", "d"]) answers.push(await join(socket, room));
  expect(answers).toEqual([
    "joined 1",
    "joined 2",
    "joined 3",
    "joined 3",
    "RangeError: corral: a WebSocket may be in at most 3 rooms (maxRoomsPerSocket)",
  ]);
  expect(app.rooms.stats()).toMatchObject({ rooms: 3, memberships: 3, joinsRefused: 1 });
  socket.close();
  await socket.closed;
  expect(app.rooms.stats()).toMatchObject({ rooms: 0, memberships: 0 });
  await app.stop();
});

test("maxRoomMemberships: all sockets together hold exactly that many; a leave makes room again", async () => {
  const app = roomsApp({ maxRoomMemberships: 4 });
  const first = await app.connectWebSocket("/rooms");
  const second = await app.connectWebSocket("/rooms");
  expect([
    await join(first, "a"),
    await join(first, "b"),
    await join(second, "a"),
    await join(second, "c"),
    await join(second, "d"),
  ]).toEqual([
    "joined 1",
    "joined 2",
    "joined 1",
    "joined 2",
    "RangeError: corral: the rooms hold 4 memberships already (maxRoomMemberships)",
  ]);
  first.close();
  await first.closed;
  expect(await join(second, "d")).toBe("joined 3");
  expect(app.rooms.stats()).toMatchObject({ memberships: 3, joinsRefused: 1 });
  second.close();
  await app.stop();
});

test("maxRoomNameLength: a name of exactly that length joins, one unit longer is refused; empty is a TypeError", async () => {
  const app = roomsApp({ maxRoomNameLength: 8 });
  const socket = await app.connectWebSocket("/rooms");
  const answers: unknown[] = [];
  for (const room of ["x".repeat(8), "x".repeat(9), ""]) answers.push(await join(socket, room));
  expect(answers).toEqual([
    "joined 1",
    "RangeError: corral: a room name is at most 8 characters (maxRoomNameLength), got 9",
    "TypeError: corral: a room name is a non-empty string",
  ]);
  expect(() => app.rooms.publish("x".repeat(9), "hi")).toThrow(RangeError);
  socket.close();
  await app.stop();
});

test("a flood of joins to new rooms stops at maxRoomMemberships; a side member's room is still served", async () => {
  const app = roomsApp({ maxRoomMemberships: 200 });
  const server = listenQuietly(app);
  const side = await openMember(`ws://127.0.0.1:${server.port}/in/side`);
  const hostiles = await Promise.all(
    Array.from({ length: 8 }, () => RawWebSocket.open(server.port, "/rooms")),
  );
  // Each hostile socket asks for 64 rooms of its own with names of 200 characters: 512 in all.
  for (const [index, hostile] of hostiles.entries()) {
    for (let room = 0; room < 64; room++) {
      hostile.sendFrame(1, `join:${`${index}-${room}-`.padEnd(200, "x")}`);
    }
  }
  await Promise.all(hostiles.map((hostile) => hostile.waitFrames(64)));
  const stats = app.rooms.stats();
  expect([stats.memberships, stats.joinsRefused]).toEqual([200, 512 - 199]);
  app.rooms.publish("side", "still here");
  await until(() => side.received.includes("still here"), "the side member's publish");
  // A socket refused at open (the side route's room is new) is closed with 1011, and logged.
  using late = await RawWebSocket.open(server.port, "/in/another");
  const [close] = await late.waitFrames(1);
  expect(describeFrame(close!)).toEqual([8, 1011, ""]);
  expect(app.logged).toEqual([
    "corral: WebSocket /in/:room: its open callback failed; the socket is closed with 1011: RangeError: corral: the rooms hold 200 memberships already (maxRoomMemberships)",
  ]);
  for (const hostile of hostiles) hostile.destroy();
  side.socket.close();
  await app.stop({ graceMs: 100 });
});

test("a client that leaves while its join awaits leaves no membership behind; the side member still joins", async () => {
  // Before, subscribe() after the close callback added a member no one would remove: every
  // such client kept a membership for good, until maxRoomMemberships refused every join.
  const app = roomsApp({ maxRoomMemberships: 3 });
  const server = listenQuietly(app);
  for (let index = 0; index < 10; index++) {
    using hostile = await RawWebSocket.open(server.port, "/rooms");
    hostile.sendFrame(1, `slow:hostile-${index}`);
    await until(() => app.slowJoins.started === index + 1, "the slow join to start");
  }
  await until(() => app.slowJoins.joined.length === 10, "the slow joins to finish");
  expect(app.slowJoins.joined).toEqual(Array(10).fill(false));
  expect(app.rooms.stats()).toMatchObject({ rooms: 0, memberships: 0 });
  const side = await openMember(`ws://127.0.0.1:${server.port}/rooms`);
  for (const room of ["a", "b", "c"]) side.socket.send(`join:${room}`);
  await until(() => side.received.length === 3, "the side member's joins");
  expect(side.received).toEqual(["joined 1", "joined 2", "joined 3"]);
  side.socket.close();
  await app.stop({ graceMs: 100 });
});
