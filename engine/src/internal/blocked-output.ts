import type { Limits } from "../limits.ts";
import type { StatsCounters } from "../stats.ts";
import { StalledClients } from "./stalled-clients.ts";

/**
 * The rule for connections whose output is blocked (the client does not read what was sent):
 *
 * 1. A connection with blocked output dispatches none of its further requests (the connection
 *    checks `output.blocked` before reading the next head), and every request is dispatched only
 *    with room for its whole response head in the output, so a finished response never waits in
 *    its worker for room.
 * 2. Only a staged body too large for the output buffer, or a stream's flush, keeps a worker
 *    while the output is blocked. Those connections are listed here, the one stalled longest
 *    first (progress moves a connection to the back).
 * 3. While any request waits for a worker, blocked connections may hold at most
 *    `blockedOutputWorkersPercent` of the workers; past that share, the one stalled longest is
 *    closed (`stats().blockedOutputCloses`) and its worker goes to the waiting request.
 *
 * So a client that stops reading slows only itself, and a crowd of them cannot make others wait.
 */
export class BlockedOutputRule extends StalledClients {
  constructor(limits: Limits, stats: StatsCounters) {
    super(limits.maxConnections, limits.workers, limits.blockedOutputWorkersPercent, (holders) => {
      stats.workersHeldByBlockedOutput = holders;
    });
  }
}
