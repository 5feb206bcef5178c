import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import WebSocketClient from "ws";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import {
  describeFrame,
  handshakeRequest,
  RawWebSocket,
} from "../../engine/test/support/websocket-client.ts";
import { clientFrame } from "../../engine/test/support/websocket-frames.ts";
import { openMember, until } from "../support/websocket-member.ts";
import { type RunningExample, startExample } from "./support/start-example.ts";

const bunClient = (path: string) => openMember(`ws://127.0.0.1:${chat.port}${path}`);

let chat: RunningExample;
beforeAll(async () => {
  chat = await startExample("chat");
});
afterAll(() => chat[Symbol.asyncDispose]());

async function handshakeStatus(
  path: string,
  origin?: string,
  hostHeader = `127.0.0.1:${chat.port}`,
): Promise<number> {
  const raw = await RawClient.connect(chat.port);
  const host = { Host: hostHeader };
  raw.send(handshakeRequest(path, origin === undefined ? host : { ...host, Origin: origin }));
  await raw.waitFor(() => raw.receivedText.includes("\r\n\r\n"), "an answer");
  const status = Number(raw.receivedText.split(" ")[1]);
  raw.destroy();
  return status;
}

describe("chat example", () => {
  test("/echo with Bun's WebSocket: text as text, binary as binary, in order", async () => {
    const { socket, received: messages } = await bunClient("/echo");
    socket.send("hello");
    socket.send(new Uint8Array([0, 1, 2, 255]));
    socket.send("é😀");
    await until(() => messages.length === 3, "3 echoes");
    expect(messages).toEqual(["hello", new Uint8Array([0, 1, 2, 255]), "é😀"]);
    socket.close();
  });

  test("/chat: two 4000-byte messages in a row are both delivered (each counted on its own)", async () => {
    // The second was refused with 1009: its size was added to the first's (4096 per message).
    const { socket, received } = await bunClient("/chat?room=sizes");
    socket.send("a".repeat(4000));
    socket.send("b".repeat(4000));
    await until(() => received.length === 2, "both messages back");
    expect(received).toEqual(["a".repeat(4000), "b".repeat(4000)]);
    socket.close();
  });

  test("/echo with the ws package: 16 MiB exactly is echoed whole", async () => {
    const socket = new WebSocketClient(`ws://127.0.0.1:${chat.port}/echo`);
    await new Promise((resolve) => socket.once("open", resolve));
    const big = new Uint8Array(16 * 1024 * 1024).fill(7);
    big[big.length - 1] = 9;
    const echoed = new Promise<Buffer>((resolve) =>
      socket.once("message", (data) => resolve(data as Buffer)),
    );
    socket.send(big);
    const back = await echoed;
    expect([back.length, back[0], back[back.length - 1]]).toEqual([big.length, 7, 9]);
    socket.close();
  });

  test("/echo: 16 MiB + 1 is refused with 1009 at its header, before its payload is read", async () => {
    using socket = await RawWebSocket.open(chat.port, "/echo");
    const header = clientFrame(2, new Uint8Array(16 * 1024 * 1024 + 1)).subarray(0, 14);
    socket.sendBytes(header);
    await socket.waitClosed();
    expect(socket.frames().map(describeFrame)).toEqual([[8, 1009, "frame over maxFrameBytes"]]);
    // A side member is served as before.
    const side = await bunClient("/echo");
    side.socket.send("still echoing");
    await until(() => side.received.length === 1, "the side member's echo");
    expect(side.received).toEqual(["still echoing"]);
    side.socket.close();
  });

  test("/echo with Debian's python3-websockets", async () => {
    const script = `
import asyncio, websockets
async def main():
    async with websockets.connect("ws://127.0.0.1:${chat.port}/echo", max_size=None) as ws:
        await ws.send("from python")
        print(await ws.recv())
        await ws.send(bytes([1, 2, 3]))
        print(list(await ws.recv()))
asyncio.run(main())
`;
    const child = Bun.spawn(["/usr/bin/python3", "-c", script], { stdout: "pipe", stderr: "pipe" });
    const [output, errors, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect({ output, errors, code }).toEqual({
      output: "from python\n[1, 2, 3]\n",
      errors: "",
      code: 0,
    });
  });

  test("Origin: none, 127.0.0.1:P and localhost:P are accepted; another origin gets 403", async () => {
    const statuses = [
      await handshakeStatus("/echo"),
      await handshakeStatus("/echo", `http://127.0.0.1:${chat.port}`),
      await handshakeStatus("/echo", `http://localhost:${chat.port}`),
      await handshakeStatus("/echo", "http://evil.example"),
      await handshakeStatus("/echo", `http://localhost:${chat.port + 1}`),
      await handshakeStatus("/chat?room=a", "https://evil.example"),
    ];
    expect(statuses).toEqual([101, 101, 101, 403, 403, 403]);
  });

  test("behind port 80 (Host without a port) the page's origin has no port either, and is accepted", async () => {
    // RFC 6454 §6.2: a browser leaves the default port out of Origin, as out of Host.
    const statuses = [
      await handshakeStatus("/echo", "http://localhost", "localhost"),
      await handshakeStatus("/echo", "http://127.0.0.1", "127.0.0.1"),
      await handshakeStatus("/echo", "http://localhost", "localhost:80"),
      await handshakeStatus("/echo", "http://localhost:80", "localhost"),
      await handshakeStatus("/echo", "http://localhost:8080", "localhost"),
      await handshakeStatus("/echo", "http://evil.example", "localhost"),
    ];
    expect(statuses).toEqual([101, 101, 101, 403, 403, 403]);
  });

  test("no extension is negotiated even when the client offers permessage-deflate", async () => {
    using socket = await RawWebSocket.open(chat.port, "/echo", {
      "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits",
    });
    expect(socket.head.toLowerCase()).not.toContain("sec-websocket-extensions");
  });

  test("/chat?room=: every member of the room gets each message, the sender too; other rooms do not", async () => {
    const first = await bunClient("/chat?room=red");
    const second = await bunClient("/chat?room=red");
    const elsewhere = await bunClient("/chat?room=blue");
    first.socket.send("hi all");
    second.socket.send("hello");
    await until(() => first.received.length === 2 && second.received.length === 2, "deliveries");
    expect([first.received, second.received, elsewhere.received]).toEqual([
      ["hi all", "hello"],
      ["hi all", "hello"],
      [],
    ]);
    for (const client of [first, second, elsewhere]) client.socket.close();
  });

  test("/chat without a valid room is 400; a bad handshake is 400; version 8 is 426", async () => {
    expect(await handshakeStatus("/chat")).toBe(400);
    expect(await handshakeStatus("/chat?room=no%20spaces")).toBe(400);
    const raw = await RawClient.connect(chat.port);
    raw.send(handshakeRequest("/echo").replace("Version: 13", "Version: 8"));
    const response = await raw.response();
    expect([response.status, response.header("sec-websocket-version")]).toEqual([426, "13"]);
    raw.destroy();
  });
});
