// Seeded random runs of WebSocket rooms in process: sockets open, join and leave rooms, publish
// (a socket, or the App from outside) and close, in random order; compared with a model in which
// each publish reaches exactly the sockets in its room at that moment, in order, the publisher
// included; a closed socket is in no room, and the counters say so. Set CORRAL_FUZZ_SEED to
// replay another run.
import { test } from "bun:test";
import { App, type InProcessWebSocket } from "corral";
import {
  caseSeed,
  expectNoMismatches,
  masterSeed,
  SeededRandom,
} from "../../engine/test/support/seeded-random.ts";

const cases = 60;
const rooms = ["a", "b", "c"];

test(`${cases} random runs of joins, leaves, publishes and closes: every socket gets what its rooms were sent while it was in them (seed ${masterSeed})`, async () => {
  const mismatches: unknown[] = [];
  for (let index = 0; index < cases; index++) {
    const seed = caseSeed("rooms", index);
    const random = new SeededRandom(seed);
    const app = new App({ log: null });
    app.ws("/room", {
      message(socket, message) {
        const [command, room, text] = String(message).split(":");
        if (command === "join") socket.subscribe(room!);
        else if (command === "leave") socket.unsubscribe(room!);
        else if (command === "publish") socket.publish(room!, `${room}:${text}`);
        socket.send(`done:${command}`);
      },
    });
    // The model: each socket's rooms while open, and what it must receive, in order.
    const sockets: {
      client: InProcessWebSocket;
      rooms: Set<string>;
      open: boolean;
      expected: string[];
      received: string[];
    }[] = [];
    const drain = async (socket: (typeof sockets)[number], count: number) => {
      for (let got = 0; got < count; got++)
        socket.received.push(String(await socket.client.next()));
    };
    let published = 0;
    const deliver = (room: string, text: string) => {
      for (const socket of sockets)
        if (socket.open && socket.rooms.has(room)) socket.expected.push(`${room}:${text}`);
    };
    for (let step = 0; step < 40; step++) {
      const open = sockets.filter((socket) => socket.open);
      const action = open.length === 0 ? 0 : random.below(6);
      if (action === 0 && sockets.length < 8) {
        sockets.push({
          client: await app.connectWebSocket("/room"),
          rooms: new Set(),
          open: true,
          expected: [],
          received: [],
        });
        continue;
      }
      if (open.length === 0) continue;
      const socket = random.pick(open);
      const room = random.pick(rooms);
      if (action === 1 || action === 2) {
        const command = action === 1 ? "join" : "leave";
        socket.client.send(`${command}:${room}`);
        if (command === "join") socket.rooms.add(room);
        else socket.rooms.delete(room);
        socket.expected.push(`done:${command}`);
      } else if (action === 3) {
        const text = `m${published++}`;
        socket.client.send(`publish:${room}:${text}`);
        deliver(room, text);
        socket.expected.push("done:publish");
      } else if (action === 4) {
        const text = `m${published++}`;
        // Wait until every socket has what was sent before, so the App's publish comes after it.
        for (const each of sockets)
          if (each.open) await drain(each, each.expected.length - each.received.length);
        app.rooms.publish(room, `${room}:${text}`);
        deliver(room, text);
        continue;
      } else {
        for (const each of sockets)
          if (each.open) await drain(each, each.expected.length - each.received.length);
        socket.client.close();
        await socket.client.closed;
        socket.open = false;
        socket.rooms.clear();
        continue;
      }
      // Each command is done before the next one starts, as the model assumes.
      await drain(socket, socket.expected.length - socket.received.length);
    }
    for (const socket of sockets)
      if (socket.open) await drain(socket, socket.expected.length - socket.received.length);
    const memberships = sockets.reduce(
      (sum, socket) => sum + (socket.open ? socket.rooms.size : 0),
      0,
    );
    const stats = app.rooms.stats();
    const seen = {
      received: sockets.map((socket) => socket.received),
      memberships: stats.memberships,
    };
    const expected = { received: sockets.map((socket) => socket.expected), memberships };
    if (JSON.stringify(seen) !== JSON.stringify(expected))
      mismatches.push({ seed, expected, seen });
    for (const socket of sockets) if (socket.open) socket.client.close();
    await app.stop();
  }
  expectNoMismatches(mismatches);
}, 60_000);
