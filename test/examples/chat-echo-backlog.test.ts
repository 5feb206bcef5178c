import { expect, test } from "bun:test";
import type { AppWebSocket } from "corral";
import { describeFrame, RawWebSocket } from "../../engine/test/support/websocket-client.ts";
import { createChatApp } from "../../examples/chat/chat-app.ts";
import { EchoBacklog } from "../../examples/chat/echo-backlog.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { openMember, until } from "../support/websocket-member.ts";

/** A socket whose queue the test sets: what the client has not read yet. */
class QueueingSocket {
  bufferedBytes = 0;
  sent: Array<string | Uint8Array> = [];
  closedWith: [number, string] | undefined;
  /** Bytes of each send that the client does not read. */
  constructor(readonly unread: boolean) {}
  send(message: string | Uint8Array) {
    this.sent.push(message);
    if (this.unread) {
      this.bufferedBytes +=
        typeof message === "string" ? Buffer.byteLength(message) : message.length;
    }
    return "queued";
  }
  close(code: number, reason: string) {
    this.closedWith = [code, reason];
  }
}

const asSocket = (socket: QueueingSocket) =>
  socket as unknown as AppWebSocket<unknown, Readonly<Record<string, string>>>;

test("echo backlog: queued bytes of all clients up to exactly the budget pass, one byte over closes the sender with 1013", () => {
  const backlog = new EchoBacklog(100);
  const hostile = new QueueingSocket(true);
  const other = new QueueingSocket(true);
  const reader = new QueueingSocket(false);
  backlog.echo(asSocket(hostile), new Uint8Array(60));
  backlog.echo(asSocket(other), "é".repeat(20)); // 40 bytes: exactly 100 queued
  const atBudget = backlog.queuedBytes;
  backlog.echo(asSocket(reader), "x"); // 101: refused
  const refusedReader = reader.closedWith;
  // The hostile client reads half of its echo: 30 bytes free again.
  hostile.bufferedBytes = 30;
  const fresh = new QueueingSocket(false);
  backlog.echo(asSocket(fresh), new Uint8Array(30));
  expect({
    atBudget,
    refusedReader,
    readerSent: reader.sent.length,
    freshSent: fresh.sent.length,
    freshClosed: fresh.closedWith,
    refused: backlog.refused,
  }).toEqual({
    atBudget: 100,
    refusedReader: [1013, "echo backlog full, try again later"],
    readerSent: 0,
    freshSent: 1,
    freshClosed: undefined,
    refused: 1,
  });
});

test("echo backlog: a closed socket's queue no longer counts, nor one drained to nothing", () => {
  const backlog = new EchoBacklog(100);
  const hostile = new QueueingSocket(true);
  backlog.echo(asSocket(hostile), new Uint8Array(100));
  const full = backlog.queuedBytes;
  backlog.forget(asSocket(hostile));
  const afterClose = backlog.queuedBytes;
  const drained = new QueueingSocket(true);
  backlog.echo(asSocket(drained), new Uint8Array(100));
  drained.bufferedBytes = 0;
  expect({ full, afterClose, afterDrain: backlog.queuedBytes }).toEqual({
    full: 100,
    afterClose: 0,
    afterDrain: 0,
  });
});

test("over the wire: a client that sends and never reads is closed with 1013 at the backlog budget, and a side client is still echoed", async () => {
  const app = await createChatApp({ echoBacklogBytes: 1024 * 1024 });
  const server = listenQuietly(app);
  try {
    using hostile = await RawWebSocket.open(server.port, "/echo");
    hostile.raw.stopReading();
    // More than the kernel's buffers on both sides take: the echoes queue in the process.
    const message = new Uint8Array(4 * 1024 * 1024).fill(1);
    for (let index = 0; index < 8; index++) hostile.sendFrame(2, message);
    const side = await openMember(`ws://127.0.0.1:${server.port}/echo`);
    side.socket.send("still echoing");
    await until(() => side.received.length === 1, "the side client's echo");
    side.socket.close();
    hostile.raw.resumeReading();
    await hostile.waitClosed(10_000);
    const frames = hostile.frames();
    expect({
      side: side.received,
      echoedBeforeClose: frames.length - 1 < 8,
      last: describeFrame(frames.at(-1)!),
    }).toEqual({
      side: ["still echoing"],
      echoedBeforeClose: true,
      last: [8, 1013, "echo backlog full, try again later"],
    });
  } finally {
    await app.stop({ graceMs: 100 });
  }
});
