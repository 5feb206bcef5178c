import type { Limits } from "../limits.ts";
import type { StatsCounters } from "../stats.ts";
import { StalledClients } from "./stalled-clients.ts";

/**
 * The rule for handlers that hold a worker while they wait for more of a request body they
 * stream (`streamBodies`): the body deadline counts from the last progress, so a client that
 * sends a byte now and then keeps its worker as long as it likes, and 64 such clients held every
 * worker of an App while everyone else got 503. While any request waits for a worker, such
 * handlers may hold at most `slowUploadWorkersPercent` of the workers; past that share, the
 * connection whose handler has waited longest for its body is answered 408 and closed
 * (`stats().slowUploadCloses`), and its worker goes to the waiting request once its handler
 * settles. A fast upload rarely waits (a read that waits only for the next turn, its chunked body
 * decoding having stopped to let the others run, waits on the engine and is not counted), and
 * nobody is closed while no request waits.
 */
export class SlowUploadRule extends StalledClients {
  constructor(limits: Limits, stats: StatsCounters) {
    super(limits.maxConnections, limits.workers, limits.slowUploadWorkersPercent, (holders) => {
      stats.workersHeldBySlowUploads = holders;
    });
  }
}
