import { describe, expect, test } from "bun:test";
import { validateHandshake, type WebSocketHandler } from "../../index.ts";
import { conformanceCases } from "../support/autobahn-cases.ts";
import { startServer } from "../support/test-server.ts";
import { RawWebSocket } from "../support/websocket-client.ts";
import type { ServerFrame } from "../support/websocket-frames.ts";

// Every case runs against Bun.serve's websocket first (the calibration: the case expects what
// the RFC requires, and Bun, on uWebSockets, does it too), then against corral's engine.

const decoder = new TextDecoder();
const maxMessageBytes = 2 * 1024 * 1024;

function outcome(frame: ServerFrame): readonly unknown[] {
  if (frame.opcode !== 8) return [frame.opcode, decoder.decode(frame.payload)];
  if (frame.payload.length < 2) return [8];
  return [8, (frame.payload[0]! << 8) | frame.payload[1]!];
}

async function run(port: number, send: readonly Uint8Array[]) {
  using socket = await RawWebSocket.open(port);
  for (const bytes of send) socket.sendBytes(bytes);
  await socket.waitClosed(10_000);
  return socket.frames().map(outcome);
}

const echo: WebSocketHandler = {
  message(session, data, isText) {
    session.send(isText ? decoder.decode(data) : data);
  },
  close() {},
};

function bunServeEcho() {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request, bun) {
      return bun.upgrade(request) ? undefined : new Response("no", { status: 400 });
    },
    websocket: {
      maxPayloadLength: maxMessageBytes,
      message(socket, message) {
        socket.send(message);
      },
    },
  });
}

describe("RFC 6455 conformance (Autobahn groups 1-7, 9, 10)", () => {
  test.each(conformanceCases.map((testCase) => [testCase.id, testCase.what, testCase] as const))(
    "%s %s: Bun.serve and corral answer as the RFC requires",
    async (_id, _what, testCase) => {
      using bunServer = bunServeEcho();
      const forBun = testCase.bunServe ?? testCase;
      expect({ bun: await run(bunServer.port!, forBun.send) }).toEqual({ bun: [...forBun.expect] });
      await using server = startServer(
        (exchange) => {
          if (validateHandshake(exchange).kind !== "valid") return;
          exchange.upgradeToWebSocket({
            handler: echo,
            limits: {
              maxMessageBytes,
              maxFrameBytes: maxMessageBytes,
              maxFragments: 8192,
              maxOutboundBytes: 2 * maxMessageBytes,
            },
          });
        },
        { maxWebSocketMessageBytes: maxMessageBytes },
      );
      expect({ corral: await run(server.port, testCase.send) }).toEqual({
        corral: [...testCase.expect],
      });
    },
  );
});
