// One WebSocket server for `bench/websocket.ts`: `bun bench/websocket-server.ts <corral|bun|ws|floor>`.
// Each serves /echo (every message back) and /room (members of one room; each message a member
// sends is published to every member, the sender too). Prints "listening PORT" when ready.
// `floor` is not a WebSocket server but the transport's floor (see websocket-floor.ts).
import { App } from "corral";
import { WebSocketServer } from "ws";

import { startTransportFloor } from "./websocket-floor.ts";

const kind = Bun.argv[2];
const maxMessageBytes = 1024 * 1024;
// The bench asks for a full collection before it reads RSS, to count what connections hold
// rather than garbage not collected yet.
process.on("SIGUSR2", () => Bun.gc(true));

if (kind === "corral") {
  const app = new App({
    shared: {},
    limits: { maxConnections: 12_000, workers: 16, maxWebSocketMessageBytes: maxMessageBytes },
  });
  const limits = {
    maxMessageBytes,
    maxFrameBytes: maxMessageBytes,
    maxOutboundBytes: 4 * maxMessageBytes,
  };
  app.ws("/echo", {
    limits,
    allowMissingOrigin: true,
    message: (socket, message) => void socket.send(message),
  });
  app.ws("/room", {
    limits,
    open: (socket) => socket.subscribe("room"),
    message: (socket, message) => void socket.publish("room", message),
  });
  const server = app.listen({ port: 0, log: null });
  console.log(`listening ${server.port}`);
} else if (kind === "bun") {
  const server = Bun.serve<{ room: boolean }>({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request, bun) {
      const room = new URL(request.url).pathname === "/room";
      return bun.upgrade(request, { data: { room } })
        ? undefined
        : new Response("no", { status: 400 });
    },
    websocket: {
      maxPayloadLength: maxMessageBytes,
      backpressureLimit: 4 * maxMessageBytes,
      open(socket) {
        if (socket.data.room) socket.subscribe("room");
      },
      message(socket, message) {
        // Bun's server.publish reaches every subscriber, the sender included.
        if (socket.data.room) server.publish("room", message);
        else socket.send(message);
      },
    },
  });
  console.log(`listening ${server.port}`);
} else if (kind === "ws") {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, maxPayload: maxMessageBytes });
  const members = new Set<import("ws").WebSocket>();
  server.on("connection", (socket, request) => {
    const room = request.url === "/room";
    if (room) members.add(socket);
    socket.on("close", () => members.delete(socket));
    socket.on("message", (data, isBinary) => {
      if (!room) return void socket.send(data, { binary: isBinary });
      for (const member of members) member.send(data, { binary: isBinary });
    });
  });
  server.on("listening", () =>
    console.log(`listening ${(server.address() as { port: number }).port}`),
  );
} else if (kind === "floor") {
  startTransportFloor();
} else {
  console.error("usage: bun bench/websocket-server.ts <corral|bun|ws|floor>");
  process.exit(2);
}
