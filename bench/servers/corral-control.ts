import type { Server } from "corral-engine";
import { reservedBytes } from "corral-engine";

/**
 * Tells the orchestrator what a corral bench server reserved (`INFO {...}` on stdout), and
 * prints its exact counters (`STATS {...}`) when it is asked to stop with SIGTERM. Keeping this
 * out of the request path means the handlers under test do nothing but answer.
 */
export function reportCorral(server: Server): void {
  const info = { budget: server.budget, reservedBytes: reservedBytes(server.limits) };
  console.log(`INFO ${JSON.stringify(info)}`);
  process.on("SIGTERM", () => {
    console.log(`STATS ${JSON.stringify(server.stats())}`);
    process.exit(0);
  });
}
