// A corral App with 16 workers whose GET /slow handler sleeps 2 s with ctx.sleep, which gives the
// worker back while it sleeps (a wait that keeps it, as a slow query does, leaves fair dispatch
// to give the next free worker to GET /ping).
import { App } from "corral";
import { abuse } from "./payloads.ts";
import { serveBenchApp } from "./serve-app.ts";

const app = new App({ shared: {}, limits: { workers: abuse.routeFloodWorkers } });
app.route("GET", abuse.slowPath, async (ctx) => {
  await ctx.sleep(abuse.slowMilliseconds);
  ctx.response.text(200, "slept");
});
app.route("GET", abuse.pingPath, (ctx) => ctx.response.text(200, abuse.pingText));
serveBenchApp(app);
