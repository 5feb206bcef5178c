import { describe, expect, test } from "bun:test";
import { type Exchange, validateHandshake, type WebSocketHandler } from "../../index.ts";
import { RawClient } from "../support/raw-client.ts";
import { startServer, waitUntil } from "../support/test-server.ts";
import { describeFrame, handshakeRequest, RawWebSocket } from "../support/websocket-client.ts";
import { clientFrame, closePayload } from "../support/websocket-frames.ts";

const echo: WebSocketHandler = {
  message(session, data, isText) {
    session.send(isText ? new TextDecoder().decode(data) : data);
  },
  close() {},
};

/** Upgrades valid handshakes to an echo; answers the rest as the App would. */
function upgrading(handler: WebSocketHandler = echo) {
  return (exchange: Exchange) => {
    const result = validateHandshake(exchange);
    if (result.kind === "refused") {
      exchange.setStatus(result.status);
      if (result.status === 426) exchange.setHeader("Sec-WebSocket-Version", "13");
      exchange.writeText(result.reason);
      return;
    }
    exchange.setHeader("X-From", "handler");
    exchange.upgradeToWebSocket({
      handler,
      protocol: result.protocols.includes("chat") ? "chat" : undefined,
    });
  };
}

describe("the upgrade on the engine", () => {
  test("101 with the accept key and the handler's header lines; echo; worker back at once", async () => {
    await using server = startServer(upgrading());
    using socket = await RawWebSocket.open(server.port, "/", {
      "Sec-WebSocket-Protocol": "x, chat",
    });
    expect(socket.head).toBe(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: chat\r\n" +
        "X-From: handler\r\n\r\n",
    );
    socket.sendFrame(1, "hello");
    socket.sendFrame(2, "bin");
    const frames = await socket.waitFrames(2);
    expect(frames.map(describeFrame)).toEqual([
      [1, "hello"],
      [2, "bin"],
    ]);
    const stats = server.stats();
    expect([
      stats.workersBusy,
      stats.webSockets.open,
      stats.webSockets.accepted,
      stats.responses["1xx"],
    ]).toEqual([0, 1, 1, 1]);
  });

  test("frames sent in the same packet as the handshake are read after the 101", async () => {
    await using server = startServer(upgrading());
    const raw = await RawClient.connect(server.port);
    const handshake = new TextEncoder().encode(handshakeRequest());
    const frame = clientFrame(1, "early");
    const both = new Uint8Array(handshake.length + frame.length);
    both.set(handshake);
    both.set(frame, handshake.length);
    raw.send(both);
    await raw.waitFor(() => raw.receivedText.endsWith("early"), "the echo");
    raw.destroy();
  });

  test("400 and 426 answers for bad handshakes; the App decides them", async () => {
    await using server = startServer(upgrading());
    const raw = await RawClient.connect(server.port);
    raw.send(handshakeRequest("/").replace("Version: 13", "Version: 8"));
    const response = await raw.response();
    expect([response.status, response.header("sec-websocket-version")]).toEqual([426, "13"]);
    raw.destroy();
  });

  test("a client's close is echoed with its code, then the server closes TCP; close once", async () => {
    const closes: unknown[] = [];
    await using server = startServer(
      upgrading({ ...echo, close: (_session, code, reason) => closes.push([code, reason]) }),
    );
    const socket = await RawWebSocket.open(server.port);
    socket.sendFrame(8, closePayload(1000, "done"));
    await socket.waitClosed();
    expect(socket.frames().map(describeFrame)).toEqual([[8, 1000, ""]]);
    await waitUntil(() => closes.length === 1, "the close callback");
    expect(closes).toEqual([[1000, "done"]]);
    expect(server.stats().webSockets.closes.normal).toBe(1);
  });

  test("a client gone before its 101 left hears neither open nor close, and the open count stays whole", async () => {
    // The socket was reset while the handler upgraded: the 101's write failed, and the session
    // reported a close (and counted one open socket less) though it never opened.
    const calls: string[] = [];
    await using server = startServer(
      upgrading({
        ...echo,
        open: () => calls.push("open"),
        close: () => calls.push("close"),
      }),
    );
    for (let client = 0; client < 40; client++) {
      const raw = await RawClient.connect(server.port);
      raw.send(handshakeRequest("/"));
      raw.destroy();
    }
    await waitUntil(() => server.stats().connectionsOpen === 0, "every connection closed");
    await Bun.sleep(50);
    const opens = calls.filter((call) => call === "open").length;
    expect({
      closes: calls.length - opens,
      open: server.stats().webSockets.open,
      accepted: server.stats().webSockets.accepted,
    }).toEqual({ closes: opens, open: 0, accepted: opens });
  });
});
