// The clients of the leaving fuzz tests (engine/test/abuse/leaving-fuzz.test.ts and
// test/abuse/leaving-fuzz.test.ts): one that leaves at a random point, and a side client whose
// requests must still be answered meanwhile.
import type { EngineStats } from "../../index.ts";
import { RawClient, sendInPieces, type WireResponse } from "./raw-client.ts";
import type { SeededRandom } from "./seeded-random.ts";

/** How long a leaving client waits, and how long the server may take to give up on it. */
export interface LeavingPace {
  /** The longest pause between its last write and its leaving. */
  readonly pauseMs: number;
  /** How long a client that never reads waits before reading again to see the close. */
  readonly blindMs: number;
}

/**
 * Sends a random prefix of `whole` in random writes to `port`, reading at once, late or never;
 * then half-closes, closes abruptly, or stays until the server closes the connection. Returns
 * what went wrong (a client that stayed and was never closed), or null.
 */
export async function leaveAtRandom(
  port: number,
  whole: Uint8Array,
  random: SeededRandom,
  pace: LeavingPace,
): Promise<string | null> {
  const sent = whole.subarray(0, random.between(0, whole.length));
  using client = await RawClient.connect(port);
  const reading = random.pick(["at once", "late", "never"] as const);
  if (reading !== "at once") client.stopReading();
  await sendInPieces((piece) => client.push(piece), sent, random.cuts(sent.length));
  // Often no pause at all: a client that leaves in the same moment it sent races the server.
  if (!random.oneIn(3)) await Bun.sleep(random.between(0, pace.pauseMs));
  if (reading === "late") client.resumeReading();
  const leaving = random.pick(["fin", "abrupt", "stays"] as const);
  if (leaving === "fin") client.end();
  if (leaving === "abrupt") client.destroy();
  if (leaving !== "stays") return null;
  // A paused socket sees no close: it reads again once the server should have given up.
  if (reading === "never") {
    await Bun.sleep(pace.blindMs);
    client.resumeReading();
  }
  try {
    // The server gives up on a client that stays (idle, body and output deadlines).
    await client.waitForClose(8000);
    return null;
  } catch {
    return `a client that stayed (reading ${reading}) was never closed`;
  }
}

/**
 * Sends `request` 20 times, each on a new connection 50 ms apart, and returns the problems: an
 * answer `isRight` refuses, or none within 3 s.
 */
export async function sideRequests(
  port: number,
  request: string,
  isRight: (response: WireResponse) => boolean,
): Promise<unknown[]> {
  const problems: unknown[] = [];
  for (let round = 0; round < 20; round++) {
    using side = await RawClient.connect(port);
    side.send(request);
    try {
      const response = await side.response(3000);
      if (!isRight(response)) problems.push({ side: round, got: response.statusLine });
    } catch (error) {
      problems.push({ side: round, problem: String(error) });
    }
    await Bun.sleep(50);
  }
  return problems;
}

/** Runs `run` for cases 0 to `cases - 1`, `lanes` at a time. */
export async function inLanes(
  cases: number,
  lanes: number,
  run: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < cases) await run(next++);
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/** What a server still holds for its clients: all of it zero once every client is gone. */
export function heldResources(stats: EngineStats) {
  return {
    connectionsOpen: stats.connectionsOpen,
    workersBusy: stats.workersBusy,
    queuedRequests: stats.queuedRequests,
    blockedConnections: stats.blockedConnections,
    workersHeldByBlockedOutput: stats.workersHeldByBlockedOutput,
    workersHeldBySlowUploads: stats.workersHeldBySlowUploads,
    internalErrors: stats.internalErrors,
  };
}

/** `heldResources` once every client is gone. */
export const nothingHeld: ReturnType<typeof heldResources> = {
  connectionsOpen: 0,
  workersBusy: 0,
  queuedRequests: 0,
  blockedConnections: 0,
  workersHeldByBlockedOutput: 0,
  workersHeldBySlowUploads: 0,
  internalErrors: 0,
};
