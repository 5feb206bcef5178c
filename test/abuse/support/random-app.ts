// The App and the random requests of the App-level fuzz tests (leaving-fuzz, stop-fuzz): one
// route of each kind that holds something while a client is away (a worker, a stream, a file, a
// subscription, a WebSocket), and a generator of raw requests for them.
import { App, EventChannel, serverSentEvents, serveStatic } from "corral";
import { compress } from "corral/middleware";
import type { SeededRandom } from "../../../engine/test/support/seeded-random.ts";
import { handshakeRequest } from "../../../engine/test/support/websocket-client.ts";
import { clientFrame } from "../../../engine/test/support/websocket-frames.ts";

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
export const concat = (parts: readonly Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** The App over `folder` (which holds `big.bin`); errors it logs go to `logged`. */
export function randomApp(folder: string, logged: string[]) {
  const channel = new EventChannel<{ n: number }>({ replayCapacity: 16, maxSubscribers: 256 });
  const app = new App({
    shared: {},
    limits: {
      workers: 6,
      headerDeadlineMs: 500,
      bodyDeadlineMs: 500,
      idleTimeoutMs: 400,
      writeStallMs: 500,
      streamDeadlineMs: 1500,
      sweepIntervalMs: 50,
    },
    log: { error: (...values: unknown[]) => logged.push(values.map(String).join(" ")) },
  });
  app.use(compress({ thresholdBytes: 1024 }));
  app.route("GET", "/stream/:count", async (ctx) => {
    const stream = ctx.response.stream(200, "text/plain");
    const writer = stream.writer();
    for (let index = 0; index < Number(ctx.params.count); index++) {
      writer.writeAll("s".repeat(8000));
      await writer.flush();
    }
    await stream.finish();
  });
  app.route("GET", "/sleep/:ms", async (ctx) => {
    await ctx.sleep(Number(ctx.params.ms));
    ctx.response.text(200, "slept");
  });
  app.route(
    "PUT",
    "/upload",
    async (ctx) => {
      let size = 0;
      for await (const piece of ctx.request.bodyStream()) size += piece.length;
      ctx.response.text(200, String(size));
    },
    { body: "stream" },
  );
  app.route("POST", "/form", (ctx) => {
    ctx.response.text(200, String(ctx.request.form().allRaw("v").length));
  });
  app.route("GET", "/page/:bytes", (ctx) => {
    ctx.response.text(200, "p".repeat(Number(ctx.params.bytes)));
  });
  app.continuation("GET", "/events", serverSentEvents(channel, { heartbeatMs: 50 }));
  serveStatic({ root: folder }).mount(app, "/files");
  serveStatic({ root: folder, sendfile: true }).mount(app, "/sent");
  app.ws("/ws", {
    limits: { idleTimeoutMs: 500, closeTimeoutMs: 500 },
    message(socket, message) {
      socket.send(message);
    },
  });
  return { app, channel };
}

/** One random request for `randomApp`, as raw bytes; a WebSocket's frames follow its upgrade. */
export function randomRequest(random: SeededRandom): Uint8Array {
  const kind = random.pick([
    "stream",
    "sleep",
    "upload",
    "form",
    "page",
    "events",
    "file",
    "ws",
  ] as const);
  const get = (target: string, extra = "") =>
    latin1(`GET ${target} HTTP/1.1\r\nHost: h\r\n${extra}\r\n`);
  switch (kind) {
    case "stream":
      return get(`/stream/${random.pick([1, 5, 60])}`);
    case "sleep":
      return get(`/sleep/${random.between(0, 40)}`);
    case "upload": {
      const body = new Uint8Array(random.pick([0, 5, 40_000, 300_000])).fill(0x75);
      return concat([
        latin1(`PUT /upload HTTP/1.1\r\nHost: h\r\nContent-Length: ${body.length}\r\n\r\n`),
        body,
      ]);
    }
    case "form": {
      const body = latin1(Array.from({ length: random.between(1, 200) }, () => "v=1").join("&"));
      return concat([
        latin1(
          "POST /form HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
            `Content-Length: ${body.length}\r\n\r\n`,
        ),
        body,
      ]);
    }
    case "page":
      return get(`/page/${random.pick([10, 5000, 60_000])}`, "Accept-Encoding: gzip, br\r\n");
    case "events":
      return get("/events", "Accept: text/event-stream\r\n");
    case "file": {
      const range = random.oneIn(2) ? `Range: bytes=${random.between(0, 1 << 20)}-\r\n` : "";
      return get(`/${random.pick(["files", "sent"])}/big.bin`, range);
    }
    case "ws": {
      const frames = Array.from({ length: random.between(0, 5) }, () =>
        clientFrame(random.pick([1, 2]), "m".repeat(random.pick([1, 200, 70_000]))),
      );
      return concat([latin1(handshakeRequest("/ws")), ...frames]);
    }
  }
}

/** Whether `request` is a WebSocket upgrade (after which the connection carries frames). */
export function isUpgrade(request: Uint8Array): boolean {
  return Buffer.from(request.subarray(0, 8)).toString("latin1") === "GET /ws ";
}
