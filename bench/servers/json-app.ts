// The App of the compress scenario: `GET /todos.json` answers 16 KiB of JSON, drafted into
// staging each time (as a handler serialising its data would), with or without compress().
import { App } from "corral";
import { compress } from "corral/middleware";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import { jsonBody, jsonPath } from "./payloads.ts";

/** Serves the JSON; `withCompression` adds `compress()` with its defaults. */
export function serveJson(withCompression: boolean): void {
  const app = new App({ shared: {} });
  const served = withCompression ? app.use(compress()) : app;
  served.get(jsonPath, (ctx) => ctx.response.bytes(200, "application/json", jsonBody));
  const server = served.listen({ hostname: "127.0.0.1", port: parsePort() });
  reportCorral({ budget: server.budget, limits: served.limits, stats: () => server.stats() });
  announceReady(server.port);
}
