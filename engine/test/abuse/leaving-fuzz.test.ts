// Seeded random clients that leave: each sends a random prefix of a random pipeline (cut in a
// head, a body, a chunk's size line, or between requests) in random writes, reads at once, late
// or never, and then half-closes, closes abruptly, or stays until the server gives up on it,
// while handlers stream, wait off their worker, read bodies as they arrive, or echo them. What
// must hold: a side client is answered throughout, the handlers meet no error but the client's
// leaving, and when the last client is gone every resource is back: no connection open, no
// worker busy or held, nothing queued or blocked, no internal error.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { expect, test } from "bun:test";
import { ClientGoneError, type Exchange, listen, StaleExchangeError } from "../../index.ts";
import {
  heldResources,
  inLanes,
  leaveAtRandom,
  nothingHeld,
  sideRequests,
} from "../support/leaving-clients.ts";
import { caseSeed, masterSeed, SeededRandom } from "../support/seeded-random.ts";
import { waitUntil } from "../support/test-server.ts";

const cases = 160;
const parallelClients = 10;
const pace = { pauseMs: 40, blindMs: 1500 };
const kinds = ["text", "stream", "wait", "echo", "streamed", "borrow"] as const;
type Kind = (typeof kinds)[number];

const borrowed = new Uint8Array(2 << 20).fill(0x62);
/** The most an answer written through staging may hold (`stagingBytes`, 64 KiB). */
const stagedMostBytes = 60_000;
/** Errors a handler may meet only because its client left (or the server gave up on it). */
const expectedErrors = (error: unknown) =>
  error instanceof ClientGoneError ||
  error instanceof StaleExchangeError ||
  (error instanceof Error && error.name === "AbortError");

async function answer(exchange: Exchange, kind: Kind, length: number): Promise<void> {
  exchange.setHeader("Content-Type", "application/octet-stream");
  switch (kind) {
    case "text":
      exchange.writeText("a".repeat(Math.min(length, stagedMostBytes)));
      return;
    case "stream": {
      const stream = exchange.stream();
      for (let sent = 0; sent < length; sent += 16_384) {
        stream.write(borrowed.subarray(0, Math.min(16_384, length - sent)));
        await stream.flush();
      }
      await stream.finish();
      return;
    }
    case "wait":
      if (exchange.canReleaseWorker) exchange.releaseWorker();
      await Bun.sleep(length % 20);
      await exchange.acquireWorker();
      exchange.write(borrowed.subarray(0, Math.min(length, stagedMostBytes)));
      return;
    case "echo":
      exchange.writeText(String(exchange.body.length));
      return;
    case "streamed": {
      let size = 0;
      for await (const piece of exchange.bodyStream()) size += piece.length;
      exchange.writeText(String(size));
      return;
    }
    case "borrow":
      exchange.borrowBody(borrowed.subarray(0, length));
      return;
  }
}

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));

function requestBytes(random: SeededRandom): Uint8Array {
  const kind = random.pick(kinds);
  const length = random.pick([0, 10, 5000, 70_000, 600_000, borrowed.length]);
  const path = `/k/${kind}/${length}`;
  if (kind !== "echo" && kind !== "streamed") {
    return latin1(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
  }
  const bodyLength = random.pick([0, 1, 9000, 200_000]);
  const body = new Uint8Array(bodyLength).fill(0x63);
  if (random.oneIn(2)) {
    const head = `POST ${path} HTTP/1.1\r\nHost: h\r\nContent-Length: ${bodyLength}\r\n\r\n`;
    return new Uint8Array(Buffer.concat([latin1(head), body]));
  }
  const parts = [latin1(`POST ${path} HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n`)];
  for (let at = 0; at < bodyLength; ) {
    const size = Math.min(bodyLength - at, random.between(1, 50_000));
    parts.push(latin1(`${size.toString(16)}\r\n`), body.subarray(at, at + size), latin1("\r\n"));
    at += size;
  }
  parts.push(latin1("0\r\n\r\n"));
  return new Uint8Array(Buffer.concat(parts));
}

test(`${cases} random clients leave at random points: the side client is served and every resource comes back (seed ${masterSeed})`, async () => {
  const failures: unknown[] = [];
  const server = listen({
    port: 0,
    log: null,
    limits: {
      maxConnections: 64,
      workers: 6,
      headerDeadlineMs: 500,
      bodyDeadlineMs: 500,
      idleTimeoutMs: 400,
      writeStallMs: 500,
      sweepIntervalMs: 50,
    },
    streamBodies: (exchange) => exchange.path.startsWith("/k/streamed/"),
    async handler(exchange) {
      const [, , kind, lengthText] = exchange.path.split("/") as [string, string, Kind, string];
      try {
        await answer(exchange, kind, Number(lengthText));
      } catch (error) {
        if (!expectedErrors(error)) failures.push({ kind, error: String(error) });
        throw error;
      }
    },
  });
  try {
    const runCase = async (index: number) => {
      const seed = caseSeed("leaving", index);
      const random = new SeededRandom(seed);
      const requests = Array.from({ length: random.between(1, 4) }, () => requestBytes(random));
      const whole = new Uint8Array(Buffer.concat(requests));
      const problem = await leaveAtRandom(server.port, whole, random, pace);
      if (problem !== null) failures.push({ seed, problem });
    };
    const side = sideRequests(
      server.port,
      "GET /k/text/5 HTTP/1.1\r\nHost: h\r\n\r\n",
      (response) => response.status === 200,
    );
    await inLanes(cases, parallelClients, runCase);
    failures.push(...(await side));
    const held = () => heldResources(server.stats());
    await waitUntil(() => Bun.deepEquals(held(), nothingHeld), "every resource back", 10_000).catch(
      () => {},
    );
    expect({
      seed: masterSeed,
      failures: failures.slice(0, 5),
      failureCount: failures.length,
      held: held(),
    }).toEqual({ seed: masterSeed, failures: [], failureCount: 0, held: nothingHeld });
  } finally {
    await server.stop({ graceMs: 100 });
  }
}, 120_000);
