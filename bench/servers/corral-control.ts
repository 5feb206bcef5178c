import type { EngineStats, Limits } from "corral/engine";
import { reservedBytes } from "corral/engine";

/** What both an engine `Server` and a listening corral App (its server and limits) offer. */
export interface CorralServerInfo {
  readonly budget: string;
  readonly limits: Limits;
  stats(): EngineStats;
}

/**
 * Tells the orchestrator what a corral bench server reserved (`INFO {...}` on stdout), and
 * prints its exact counters (`STATS {...}`) when it is asked to stop with SIGTERM. Keeping this
 * out of the request path means the handlers under test do nothing but answer.
 */
export function reportCorral(server: CorralServerInfo): void {
  const info = {
    budget: server.budget,
    reservedBytes: reservedBytes(server.limits),
    maxUnreadInputBytes: server.limits.maxUnreadInputBytes,
  };
  console.log(`INFO ${JSON.stringify(info)}`);
  process.on("SIGTERM", () => {
    console.log(`STATS ${JSON.stringify(server.stats())}`);
    process.exit(0);
  });
}
