// The end of a WebSocket's TCP connection. A server that closes its socket with bytes from the
// client still unread makes the kernel send a reset, and the client's kernel then throws away
// what the client had not read yet: our close frame, and any echo before it. After a frame that
// breaks the protocol the client has often sent more behind it, so the connection half-closes
// and lingers (reading and dropping) as an HTTP connection does after an error answer.
import { expect, test } from "bun:test";
import { type Exchange, validateHandshake, type WebSocketHandler } from "../../index.ts";
import { startServer, waitUntil } from "../support/test-server.ts";
import { describeFrame, handshakeRequest, RawWebSocket } from "../support/websocket-client.ts";
import { clientFrame, closePayload, concatBytes } from "../support/websocket-frames.ts";

const closes: number[] = [];
const echo: WebSocketHandler = {
  message(session, data, isText) {
    session.send(isText ? new TextDecoder().decode(data) : data);
  },
  close(_session, code) {
    closes.push(code);
  },
};

function upgrading(exchange: Exchange): void {
  if (validateHandshake(exchange).kind !== "valid") return;
  // Room for every echo of slowReaderEnding: its client does not read them for a while.
  exchange.upgradeToWebSocket({ handler: echo, limits: { maxOutboundBytes: 4 << 20 } });
}

/** A megabyte of masked binary frames the server never gets to read. */
const trailing = concatBytes(
  ...Array.from({ length: 16 }, () => clientFrame(2, new Uint8Array(65_000))),
);

/**
 * Sends 48 echoed messages, then `ending`, then a megabyte the server never reads, and reads
 * nothing for a while: the echoes are larger than the sockets' buffers, so they are still on
 * their way (in the server's kernel buffer) when our close frame is written. A reset would
 * throw away all of that. Returns the echoes' opcode, length and first byte, and the last frame.
 */
async function slowReaderEnding(port: number, ending: Uint8Array) {
  using socket = await RawWebSocket.open(port);
  socket.raw.stopReading();
  socket.sendBytes(
    concatBytes(...echoed.map((message) => clientFrame(2, message)), ending, trailing),
  );
  await Bun.sleep(200);
  socket.raw.resumeReading();
  await socket.waitClosed(5000);
  const frames = socket.frames();
  return {
    echoes: frames
      .slice(0, -1)
      .map((frame) => [frame.opcode, frame.payload.length, frame.payload[0]]),
    last: describeFrame(frames[frames.length - 1]!),
  };
}

const echoed = Array.from({ length: 48 }, (_, index) => new Uint8Array(60_000).fill(index));
const allEchoes = echoed.map((message, index) => [2, message.length, index]);

test("after a frame that breaks the protocol, every echo before it and the 1002 reach a slow reader that sent a megabyte behind it", async () => {
  closes.length = 0;
  await using server = startServer(upgrading);
  expect(
    await slowReaderEnding(server.port, clientFrame(1, "unmasked", { masked: false })),
  ).toEqual({ echoes: allEchoes, last: [8, 1002, "unmasked frame"] });
  await waitUntil(() => server.stats().connectionsOpen === 0, "the slot to be freed");
  expect({ closes, protocolErrors: server.stats().webSockets.closes.protocolError }).toEqual({
    closes: [1006],
    protocolErrors: 1,
  });
});

test("a client's close with more frames behind it gets every echo and the server's close, not a reset", async () => {
  closes.length = 0;
  await using server = startServer(upgrading);
  expect(await slowReaderEnding(server.port, clientFrame(8, closePayload(4000, "done")))).toEqual({
    echoes: allEchoes,
    last: [8, 4000, ""],
  });
  await waitUntil(() => server.stats().connectionsOpen === 0, "the slot to be freed");
  expect(closes).toEqual([4000]);
});

test("a client that keeps its end open after our close is closed when the linger ends", async () => {
  closes.length = 0;
  await using server = startServer(upgrading);
  const seen = { bytes: 0, ended: false, closed: false };
  // allowHalfOpen: the client does not close when our FIN comes, as a careless one would not.
  const client = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port,
    allowHalfOpen: true,
    socket: {
      data(_socket, data) {
        seen.bytes += data.length;
      },
      end() {
        seen.ended = true;
      },
      close() {
        seen.closed = true;
      },
    },
  });
  client.write(handshakeRequest());
  await waitUntil(() => seen.bytes > 0, "the 101");
  client.write(clientFrame(2, "x", { masked: false }));
  await waitUntil(() => seen.ended, "the server's FIN after its close frame");
  // The client neither closes nor stops sending; the server reads on and drops it.
  client.write(clientFrame(1, "ignored"));
  expect({ open: server.stats().connectionsOpen, closed: seen.closed }).toEqual({
    open: 1,
    closed: false,
  });
  await waitUntil(() => server.stats().connectionsOpen === 0, "the linger to end", 3000);
  // The server's socket is closed now: what the client sends next is answered by a reset.
  client.write(clientFrame(1, "after the linger"));
  await waitUntil(() => seen.closed, "the client to see the reset", 3000);
  expect(closes).toEqual([1006]);
});
