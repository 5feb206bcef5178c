// The App and the random requests of the App-level fuzz tests (leaving-fuzz, stop-fuzz): one
// route of each kind that holds something while a client is away (a worker, a wait off the
// worker, a pool job, a stream, a file, a subscription, a WebSocket), and a generator of raw
// requests for them.
import { App, EventChannel, serverSentEvents, serveStatic, WorkerPool } from "corral";
import { compress } from "corral/middleware";
import type { SeededRandom } from "../../../engine/test/support/seeded-random.ts";
import { handshakeRequest } from "../../../engine/test/support/websocket-client.ts";
import { clientFrame } from "../../../engine/test/support/websocket-frames.ts";
import type { FixtureRequest, FixtureResponse } from "../../services/fixtures/jobs-worker.ts";

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
export const concat = (parts: readonly Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** The pool of the App's `/pool` route: bounded well above what the fuzz clients ask at once. */
export type RandomAppPool = WorkerPool<FixtureRequest, FixtureResponse>;

/** A pool for `randomApp`, whose jobs sleep; the caller closes it. */
export function randomAppPool(): RandomAppPool {
  const script = new URL("../../services/fixtures/jobs-worker.ts", import.meta.url);
  return new WorkerPool<FixtureRequest, FixtureResponse>({ script, threads: 2, maxQueuedJobs: 64 });
}

/**
 * The App over `folder` (which holds `big.bin`), its `/pool` route on `pool`; errors it logs go
 * to `logged`.
 */
export function randomApp(folder: string, logged: string[], pool: RandomAppPool) {
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
  app.route("GET", "/off/:ms", async (ctx) => {
    const waited = Bun.sleep(Number(ctx.params.ms)).then(() => "off");
    ctx.response.text(200, await ctx.awaitOffWorker(waited));
  });
  app.route("GET", "/pool/:ms", async (ctx) => {
    // The way most handlers are written: no context, no signal.
    const result = await pool.run({ kind: "sleep", milliseconds: Number(ctx.params.ms) });
    ctx.response.text(200, result.value);
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
    "off",
    "pool",
    "upload",
    "form",
    "page",
    "events",
    // Twice: a client must get far enough into a file for it to be sent, which many do not.
    "file",
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
    case "off":
      return get(`/off/${random.between(0, 40)}`);
    case "pool":
      return get(`/pool/${random.between(0, 40)}`);
    case "upload":
      return randomUpload(random);
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

/** A streamed upload of a random size, sized or chunked, with or without `Expect: 100-continue`. */
function randomUpload(random: SeededRandom): Uint8Array {
  const size = random.pick([0, 5, 40_000, 300_000]);
  const expect = random.oneIn(3) ? "Expect: 100-continue\r\n" : "";
  const head = (framing: string) =>
    latin1(`PUT /upload HTTP/1.1\r\nHost: h\r\n${expect}${framing}\r\n`);
  if (random.oneIn(2)) {
    return concat([head(`Content-Length: ${size}\r\n`), new Uint8Array(size).fill(0x75)]);
  }
  const chunks: Uint8Array[] = [];
  for (let left = size; left > 0; ) {
    const length = Math.min(left, random.between(1, 70_000));
    chunks.push(
      latin1(`${length.toString(16)}\r\n`),
      new Uint8Array(length).fill(0x75),
      latin1("\r\n"),
    );
    left -= length;
  }
  return concat([head("Transfer-Encoding: chunked\r\n"), ...chunks, latin1("0\r\n\r\n")]);
}
