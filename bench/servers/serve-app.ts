import type { App } from "corral";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";

/** Listens on 127.0.0.1 at `--port`, reports the budget and counters, and prints READY. */
export function serveBenchApp<Shared, Locals extends object>(app: App<Shared, Locals>): void {
  const server = app.listen({ hostname: "127.0.0.1", port: parsePort() });
  reportCorral({ budget: server.budget, limits: app.limits, stats: () => server.stats() });
  announceReady(server.port);
}
