// Seeded random clients of a whole App that leave: each sends a random prefix of a random run of
// requests (a stream, a sleep, a streamed upload, a form, a compressed page, an SSE stream, a file
// whole or by range, read or sent with sendfile, a WebSocket exchanging messages), cut anywhere,
// in random writes; reads at once, late or never; then half-closes, closes abruptly, or stays
// until the server gives up on it. What must hold: a side client is answered throughout, nothing
// is logged for the operator (a client leaving is not a failure), and once the last client is
// gone every resource is back: connections, workers, queues, WebSockets, SSE subscribers.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, EventChannel, serverSentEvents, serveStatic } from "corral";
import { compress } from "corral/middleware";
import { RawClient, sendInPieces } from "../../engine/test/support/raw-client.ts";
import { caseSeed, masterSeed, SeededRandom } from "../../engine/test/support/seeded-random.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { handshakeRequest } from "../../engine/test/support/websocket-client.ts";
import { clientFrame } from "../../engine/test/support/websocket-frames.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const cases = 120;
const parallelClients = 10;
const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const concat = (parts: readonly Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

function leavingApp(folder: string, logged: string[]) {
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

function requestBytes(random: SeededRandom): Uint8Array {
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

test(`${cases} random clients of an App leave at random points: the side client is served, nothing is logged, every resource comes back (seed ${masterSeed})`, async () => {
  const folder = mkdtempSync(join(tmpdir(), "corral-leaving-"));
  writeFileSync(join(folder, "big.bin"), new Uint8Array(2 << 20).fill(0x66));
  const logged: string[] = [];
  const failures: unknown[] = [];
  const { app, channel } = leavingApp(folder, logged);
  const server = listenQuietly(app);
  let publishing = true;
  const publisher = (async () => {
    for (let n = 0; publishing; n++) {
      channel.publish({ n });
      await Bun.sleep(10);
    }
  })();
  try {
    const runCase = async (index: number) => {
      const seed = caseSeed("app-leaving", index);
      const random = new SeededRandom(seed);
      // A WebSocket takes the connection: nothing is sent after its frames.
      const requests: Uint8Array[] = [];
      for (let count = random.between(1, 3); requests.length < count; ) {
        const request = requestBytes(random);
        requests.push(request);
        if (Buffer.from(request.subarray(0, 12)).toString("latin1").startsWith("GET /ws")) break;
      }
      const whole = concat(requests);
      const sent = whole.subarray(0, random.between(0, whole.length));
      using client = await RawClient.connect(server.port);
      const reading = random.pick(["at once", "late", "never"] as const);
      if (reading !== "at once") client.stopReading();
      await sendInPieces((piece) => client.push(piece), sent, random.cuts(sent.length));
      await Bun.sleep(random.between(0, 60));
      if (reading === "late") client.resumeReading();
      const leaving = random.pick(["fin", "abrupt", "stays"] as const);
      if (leaving === "fin") client.end();
      if (leaving === "abrupt") client.destroy();
      if (leaving !== "stays") return;
      // A paused socket sees no close: it reads again once the server should have given up.
      if (reading === "never") {
        await Bun.sleep(2000);
        client.resumeReading();
      }
      try {
        await client.waitForClose(8000);
      } catch {
        failures.push({ seed, problem: "a client that stayed was never closed", reading });
      }
    };
    const sideClient = async () => {
      for (let round = 0; round < 20; round++) {
        using side = await RawClient.connect(server.port);
        side.send("GET /sleep/0 HTTP/1.1\r\nHost: h\r\n\r\n");
        try {
          const response = await side.response(3000);
          if (response.text !== "slept") failures.push({ side: round, got: response.statusLine });
        } catch (error) {
          failures.push({ side: round, problem: String(error) });
        }
        await Bun.sleep(50);
      }
    };
    let next = 0;
    const lane = async () => {
      while (next < cases) await runCase(next++);
    };
    await Promise.all([...Array.from({ length: parallelClients }, lane), sideClient()]);
    const resources = () => {
      const stats = app.stats();
      return {
        connectionsOpen: stats.connectionsOpen,
        workersBusy: stats.workersBusy,
        queuedRequests: stats.queuedRequests,
        blockedConnections: stats.blockedConnections,
        workersHeldByBlockedOutput: stats.workersHeldByBlockedOutput,
        workersHeldBySlowUploads: stats.workersHeldBySlowUploads,
        webSocketsOpen: stats.webSockets.open,
        subscribers: channel.subscribers,
        internalErrors: stats.internalErrors,
      };
    };
    const none = {
      connectionsOpen: 0,
      workersBusy: 0,
      queuedRequests: 0,
      blockedConnections: 0,
      workersHeldByBlockedOutput: 0,
      workersHeldBySlowUploads: 0,
      webSocketsOpen: 0,
      subscribers: 0,
      internalErrors: 0,
    };
    await waitUntil(() => Bun.deepEquals(resources(), none), "every resource back", 10_000).catch(
      () => {},
    );
    const stats = app.stats();
    expect({
      seed: masterSeed,
      failures: failures.slice(0, 5),
      failureCount: failures.length,
      logged: logged.slice(0, 3),
      resources: resources(),
      // The run reached what it means to test: upgrades, files sent with sendfile, many requests.
      exercised: {
        webSockets: stats.webSockets.accepted > 0,
        sendfile: stats.bytesSentFromFiles > 0,
        requests: stats.requests > cases / 2,
      },
    }).toEqual({
      seed: masterSeed,
      failures: [],
      failureCount: 0,
      logged: [],
      resources: none,
      exercised: { webSockets: true, sendfile: true, requests: true },
    });
  } finally {
    publishing = false;
    await publisher;
    await app.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}, 120_000);
