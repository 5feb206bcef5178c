// The attacks of the abuse scenario (issue "No client can deny service to other clients"), each
// against a corral server and Bun.serve doing the same work. An attack only opens raw
// connections to 127.0.0.1 and is bounded by the caller's window: `stop()` closes every
// connection it opened.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  closedCount,
  encoder,
  get,
  nonReaders,
  pipelined,
  pipelinedBytes,
  type RunningAttack,
  StatusTally,
  stopAll,
} from "./attackers.ts";
import { openMany, RawConnection } from "./raw-connection.ts";
import { abuse } from "./servers/payloads.ts";
import { staticFiles, writeStaticFiles } from "./servers/static-files.ts";
import { sinkPath } from "./servers/upload-sink.ts";

export type AbuseAttackId =
  | "staged"
  | "pinned"
  | "idle"
  | "accept"
  | "pool"
  | "route"
  | "forms"
  | "pipelined-5mb"
  | "forms-pipelined"
  | "chunked"
  | "downloads"
  | "slowloris";

/** One attack, the servers it runs against and the side client's request. */
export interface AbuseAttack {
  readonly id: AbuseAttackId;
  readonly title: string;
  /** Scripts in bench/servers: the corral server and Bun.serve doing the same work. */
  readonly corral: string;
  readonly bun: string;
  /** The side client's request target, answered 200 by both servers. */
  readonly sideTarget: string;
  readonly sideHeaders?: string;
  /** Arguments both servers are started with (made when the attack runs). */
  readonly serverArgs?: () => readonly string[];
  /** Opens the attacking connections and starts them; resolves once all of them are going. */
  launch(port: number): Promise<RunningAttack>;
}

/** The side client's request for `attack`. */
export function sideRequest(attack: AbuseAttack): Uint8Array {
  return encoder.encode(get(attack.sideTarget, `${attack.sideHeaders ?? ""}Connection: close\r\n`));
}

/** 64 clients, each posting a 1 MB `a&a&...` form three times, a new connection per post. */
async function formPosters(port: number): Promise<RunningAttack> {
  const body = "a&".repeat(500_000);
  const post = encoder.encode(
    "POST /form HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      "Content-Type: application/x-www-form-urlencoded\r\n" +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  );
  const tally = new StatusTally();
  const open: RawConnection[] = [];
  let stopped = false;
  // Each client posts on a new connection once its previous post is answered or closed.
  const postFrom = async (left: number): Promise<void> => {
    if (left === 0 || stopped) return;
    const { promise, resolve } = Promise.withResolvers<void>();
    const connection = await RawConnection.open(port, {
      onResponse(status) {
        tally.add(status);
        resolve();
      },
      onClose: () => resolve(),
    });
    open.push(connection);
    if (stopped) return connection.destroy();
    connection.send(post);
    await promise;
    connection.destroy();
    await postFrom(left - 1);
  };
  for (let client = 0; client < 64; client++) postFrom(3).catch(() => {});
  return {
    outcome: () => `${tally}; ${64 * 3 - tally.total} not answered`,
    stop() {
      stopped = true;
      stopAll(open);
    },
  };
}

/** 50 clients that never read, each pipelining 5 MB of `GET /hello` once. */
function pipelinersOf5Megabytes(port: number): Promise<RunningAttack> {
  return nonReaders(port, 50, pipelinedBytes(get("/hello"), 5_000_000), false);
}

/**
 * `count` clients, each streaming one chunked body of 1-byte chunks to the upload sink without
 * end, as fast as the server takes it (6 bytes on the wire for each byte of body).
 */
async function oneByteChunkUploaders(port: number, count: number): Promise<RunningAttack> {
  const head = encoder.encode(
    `PUT ${sinkPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n`,
  );
  const chunks = encoder.encode("1\r\nx\r\n".repeat(10_000));
  const connections = await openMany(count, () => RawConnection.open(port));
  for (const connection of connections) {
    connection.send(head);
    connection.sendRepeatedly(chunks);
  }
  const sent = () => connections.reduce((sum, connection) => sum + connection.bytesSent, 0);
  return {
    outcome: () => `${(sent() / 1048576).toFixed(0)} MiB of chunks taken by the kernel`,
    stop: () => stopAll(connections),
  };
}

/**
 * `count` keep-alive clients, each asking for `target` again on its connection as soon as it is
 * answered. `noun` names the answers in the outcome.
 */
async function askingAgain(
  port: number,
  count: number,
  target: string,
  noun: string,
): Promise<RunningAttack> {
  const tally = new StatusTally();
  const request = encoder.encode(get(target));
  let stopped = false;
  const openClient = async () => {
    let connection: RawConnection | undefined;
    connection = await RawConnection.open(port, {
      onResponse(status) {
        tally.add(status);
        if (!stopped) connection?.send(request);
      },
    });
    return connection;
  };
  const connections = await openMany(count, openClient);
  for (const connection of connections) connection.send(request);
  return {
    outcome: () => `${tally.total} ${noun} (${tally})`,
    stop() {
      stopped = true;
      stopAll(connections);
    },
  };
}

/** 2 x 1024 connections, each trickling its request head a byte every 500 ms, without end. */
async function slowHeads(port: number): Promise<RunningAttack> {
  const connections = await openMany(2 * 1024, () => RawConnection.open(port));
  const start = encoder.encode("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  const byte = encoder.encode("a");
  for (const connection of connections) connection.send(start);
  const timer = setInterval(() => {
    for (const connection of connections) if (!connection.closed) connection.send(byte);
  }, 500);
  return {
    outcome: () => `${closedCount(connections)}/${connections.length} closed by the server`,
    stop() {
      clearInterval(timer);
      stopAll(connections);
    },
  };
}

let staticFolder: string | undefined;

/** The static scenario's files, written once into a temporary folder removed at exit. */
function staticFolderArguments(): readonly string[] {
  if (staticFolder === undefined) {
    const folder = mkdtempSync(join(tmpdir(), "corral-bench-abuse-static-"));
    writeStaticFiles(folder);
    process.on("exit", () => rmSync(folder, { recursive: true, force: true }));
    staticFolder = folder;
  }
  return ["--dir", staticFolder];
}

export const attacks: readonly AbuseAttack[] = [
  {
    id: "staged",
    title: "staged 60 KB bodies: 8 non-readers x 100 pipelined, 8 workers",
    corral: "corral-staged.ts",
    bun: "bun-serve-staged.ts",
    sideTarget: abuse.pingPath,
    launch: (port) => nonReaders(port, 8, pipelined(get(abuse.stagedPath), 100), false),
  },
  {
    id: "pinned",
    title: "demo /hello: 70 non-readers pipelining without end, 64 workers",
    corral: "corral-demo.ts",
    bun: "bun-serve-demo.ts",
    sideTarget: "/hello?name=side",
    launch: (port) => nonReaders(port, 70, pipelinedBytes(get("/hello"), 64 * 1024), true),
  },
  {
    id: "idle",
    title: "demo: 2 x 1024 silent connections, maxConnections 1024",
    corral: "corral-demo.ts",
    bun: "bun-serve-demo.ts",
    sideTarget: "/hello?name=side",
    async launch(port) {
      const connections = await openMany(2 * 1024, () => RawConnection.open(port));
      return {
        outcome: () => `${closedCount(connections)}/${connections.length} closed by the server`,
        stop: () => stopAll(connections),
      };
    },
  },
  {
    id: "accept",
    title: "15 KB Accept, inner run of spaces: 60 pipelined, again when answered",
    corral: "corral-negotiation.ts",
    bun: "bun-serve-negotiation.ts",
    sideTarget: "/greeting",
    sideHeaders: "Accept: text/html\r\n",
    async launch(port) {
      const batch = encoder.encode(
        get("/greeting", `Accept: text/html${" ".repeat(15_000)}x\r\n`).repeat(60),
      );
      const tally = new StatusTally();
      let connection: RawConnection | null = null;
      let stopped = false;
      let pending = 0;
      const send = () => {
        pending = 60;
        connection?.send(batch);
      };
      connection = await RawConnection.open(port, {
        onResponse(status) {
          tally.add(status);
          if (--pending === 0 && !stopped) send();
        },
      });
      send();
      return {
        outcome: () => `${tally.total} answered (${tally}), ${pending} waiting`,
        stop() {
          stopped = true;
          connection?.destroy();
        },
      };
    },
  },
  {
    id: "pool",
    title: "pool: 300 concurrent requests for a 200 ms job, 2 threads, 16 workers",
    corral: "corral-pool.ts",
    bun: "bun-serve-pool.ts",
    sideTarget: abuse.pingPath,
    async launch(port) {
      const tally = new StatusTally();
      const connections = await openMany(300, () =>
        RawConnection.open(port, { onResponse: (status) => tally.add(status) }),
      );
      const request = encoder.encode(get(abuse.jobPath));
      for (const connection of connections) connection.send(request);
      return {
        outcome: () => `${tally}; ${300 - tally.total} waiting`,
        stop: () => stopAll(connections),
      };
    },
  },
  {
    id: "route",
    title: "slow route: 200 clients on a route waiting 2 s, again when answered, 16 workers",
    corral: "corral-slow-route.ts",
    bun: "bun-serve-slow-route.ts",
    sideTarget: abuse.pingPath,
    launch: (port) => askingAgain(port, 200, abuse.slowPath, "answered"),
  },
  {
    id: "forms",
    title: "demo /form: 64 clients x 3 POST of a 1 MB `a&a&...` body",
    corral: "corral-demo.ts",
    bun: "bun-serve-demo.ts",
    sideTarget: "/hello?name=side",
    launch: formPosters,
  },
  {
    id: "pipelined-5mb",
    title: "demo /hello: 50 non-readers pipelining 5 MB each",
    corral: "corral-demo.ts",
    bun: "bun-serve-demo.ts",
    sideTarget: "/hello?name=side",
    launch: pipelinersOf5Megabytes,
  },
  {
    id: "forms-pipelined",
    title: "demo: the 1 MB forms and the 5 MB pipeliners at once",
    corral: "corral-demo.ts",
    bun: "bun-serve-demo.ts",
    sideTarget: "/hello?name=side",
    async launch(port) {
      const [forms, pipeliners] = await Promise.all([
        formPosters(port),
        pipelinersOf5Megabytes(port),
      ]);
      return {
        outcome: () => `forms: ${forms.outcome()}; pipeliners: ${pipeliners.outcome()}`,
        stop() {
          forms.stop();
          pipeliners.stop();
        },
      };
    },
  },
  {
    id: "chunked",
    title: "uploads of 1-byte chunks: 4 clients streaming one body each without end",
    corral: "corral-upload.ts",
    bun: "bun-serve-upload.ts",
    sideTarget: abuse.pingPath,
    launch: (port) => oneByteChunkUploaders(port, 4),
  },
  {
    id: "downloads",
    title: "downloads: 16 clients taking a 10 MiB file again and again, as fast as it comes",
    corral: "corral-static.ts",
    bun: "bun-serve-static-file.ts",
    sideTarget: `/${staticFiles[0].name}`,
    serverArgs: staticFolderArguments,
    launch: (port) => askingAgain(port, 16, `/${staticFiles[2].name}`, "downloads"),
  },
  {
    id: "slowloris",
    title: "demo: 2 x 1024 heads trickled a byte every 500 ms, maxConnections 1024",
    corral: "corral-demo.ts",
    bun: "bun-serve-demo.ts",
    sideTarget: "/hello?name=side",
    launch: slowHeads,
  },
];
