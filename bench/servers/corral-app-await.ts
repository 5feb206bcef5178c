// What an `await` costs an App route: `GET /now` answers "Hello, World!" at once, `GET /await`
// the same after awaiting a settled promise, `GET /off-worker` after awaiting it with the engine
// worker given back (`ctx.awaitOffWorker`, as a route waiting for PostgreSQL does). Meant for
// bench/instructions.ts and bench/alternate.ts (docs/databases.md, "Measured").
import { App } from "corral";
import { announceReady, parsePort } from "./cli.ts";
import { helloText } from "./payloads.ts";

const settled = Promise.resolve(helloText);
const app = new App({ shared: {} });

app.route("GET", "/now", (ctx) => {
  ctx.response.text(200, helloText);
});
app.route("GET", "/await", async (ctx) => {
  ctx.response.text(200, await settled);
});
app.route("GET", "/off-worker", async (ctx) => {
  ctx.response.text(200, await ctx.awaitOffWorker(settled));
});

const server = app.listen({ hostname: "127.0.0.1", port: parsePort() });
announceReady(server.port);
