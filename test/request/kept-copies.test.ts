// "Copy what you need": the borrowed bytes corral hands out are plain Uint8Arrays, so slice()
// copies them as it does for any Uint8Array. They were Buffers (Bun's socket chunks), whose
// slice() is a view: a copy kept that way read garbage or nothing once the memory was reused or
// freed (a large body's chunk is freed when its request ends; a streamed piece is overwritten).
import { expect, test } from "bun:test";
import { App } from "corral";
import { listenQuietly } from "../support/listen-quietly.ts";

const large = new Uint8Array(200_000).map((_, index) => 97 + (index % 26));

test("slice() of a body, a streamed piece, a multipart part and a binary WebSocket message is a copy that outlives the request", async () => {
  const kept: Record<string, Uint8Array[]> = {
    body: [],
    piece: [],
    part: [],
    streamedPart: [],
    message: [],
  };
  const kinds = new Set<string>();
  const app = new App({ log: null });
  app.route("POST", "/body", (ctx) => {
    kinds.add(ctx.request.body.constructor.name);
    kept.body!.push(ctx.request.body.slice());
  });
  app.route(
    "POST",
    "/stream",
    async (ctx) => {
      for await (const piece of ctx.request.bodyStream()) {
        kinds.add(piece.constructor.name);
        kept.piece!.push(piece.slice());
      }
    },
    { body: "stream" },
  );
  app.route("POST", "/form", (ctx) => {
    for (const part of ctx.request.multipart()) {
      kinds.add(part.bytes.constructor.name);
      kept.part!.push(part.bytes.slice());
    }
  });
  app.route(
    "POST",
    "/form-stream",
    async (ctx) => {
      for await (const part of ctx.request.multipartStream()) {
        for await (const piece of part.content()) {
          kinds.add(piece.constructor.name);
          kept.streamedPart!.push(piece.slice());
        }
      }
    },
    { body: "stream" },
  );
  app.ws("/socket", {
    message(socket, message) {
      if (typeof message === "string") return;
      kinds.add(message.constructor.name);
      kept.message!.push(message.slice());
      socket.send("kept");
    },
  });
  const server = listenQuietly(app);
  const base = `http://127.0.0.1:${server.port}`;
  const form = () => {
    const data = new FormData();
    data.append("file", new Blob([large]), "large.bin");
    return data;
  };
  for (let round = 0; round < 2; round++) {
    await fetch(`${base}/body`, { method: "POST", body: large });
    await fetch(`${base}/stream`, { method: "POST", body: large });
    await fetch(`${base}/form`, { method: "POST", body: form() });
    await fetch(`${base}/form-stream`, { method: "POST", body: form() });
  }
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/socket`);
  await new Promise((resolve) => socket.addEventListener("open", resolve));
  for (let round = 0; round < 2; round++) {
    socket.send(large.subarray(0, 60_000));
    await new Promise((resolve) => socket.addEventListener("message", resolve, { once: true }));
  }
  socket.close();
  // Each kept copy, twice over, against what was sent; a view of freed memory throws when read.
  const intact = (copies: Uint8Array[], sent: Uint8Array) => {
    try {
      return Buffer.concat(copies).equals(Buffer.concat([sent, sent]));
    } catch (error) {
      return String(error);
    }
  };
  const overTcp = {
    kinds: [...kinds],
    body: intact(kept.body!, large),
    piece: intact(kept.piece!, large),
    part: intact(kept.part!, large),
    streamedPart: intact(kept.streamedPart!, large),
    message: intact(kept.message!, large.subarray(0, 60_000)),
  };
  // In process too: what app.request() sends is lent as plain Uint8Arrays.
  kinds.clear();
  await app.request("/stream", { method: "POST", body: large });
  await app.request("/form-stream", { method: "POST", body: form() });
  await app.stop();
  expect({ overTcp, inProcess: [...kinds] }).toEqual({
    overTcp: {
      kinds: ["Uint8Array"],
      body: true,
      piece: true,
      part: true,
      streamedPart: true,
      message: true,
    },
    inProcess: ["Uint8Array"],
  });
});
