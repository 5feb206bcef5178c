// TechEmpower's six tests on Elysia (on Bun.serve), written the way Elysia's docs show: a chain
// of `.get` handlers returning values (objects become JSON), `.headers()` for the `Server` header,
// `query` from the context, `set.headers` for the page's type, and `.onError`. The database
// module, the clamp and the Mustache escaping are the corral example's.
import { Elysia } from "elysia";
import Mustache from "mustache";
import fortunesTemplate from "../../examples/techempower/fortunes.mustache" with { type: "text" };
import {
  clampQueries,
  fortunesPage,
  htmlContentType,
  plaintextMessage,
} from "../../examples/techempower/rules.ts";
import { randomWorldNumber } from "../../examples/techempower/seed-data.ts";
import { isDatabaseUnavailable } from "../../examples/techempower/world-database.ts";
import { announceReady, parsePort } from "./cli.ts";
import { openBenchDatabase } from "./techempower-database.ts";

const database = await openBenchDatabase();

const synchronous = database.synchronous;

const app = new Elysia()
  .headers({ server: "Elysia" })
  .onError(({ error, set }) => {
    if (isDatabaseUnavailable(error)) {
      set.status = 503;
      set.headers["retry-after"] = String(error.retryAfterSeconds);
      return `Service Unavailable: ${error.message}\n`;
    }
    console.error(error);
  })
  .get("/json", () => ({ message: "Hello, World!" }))
  .get("/plaintext", () => plaintextMessage);

// SQLite answers on this thread: synchronous handlers, as with `bun:sqlite` anywhere.
if (synchronous !== undefined) {
  app
    .get("/db", () => synchronous.findWorld(randomWorldNumber()))
    .get("/queries", ({ query }) => synchronous.findRandomWorlds(clampQueries(query.queries)))
    .get("/updates", ({ query }) => synchronous.updateRandomWorlds(clampQueries(query.queries)))
    .get("/fortunes", ({ set }) => {
      set.headers["content-type"] = htmlContentType;
      return Mustache.render(fortunesTemplate, { fortunes: fortunesPage(synchronous.fortunes()) });
    });
} else {
  app
    .get("/db", () => database.findWorld(randomWorldNumber()))
    .get("/queries", ({ query }) => database.findRandomWorlds(clampQueries(query.queries)))
    .get("/updates", ({ query }) => database.updateRandomWorlds(clampQueries(query.queries)))
    .get("/fortunes", async ({ set }) => {
      const fortunes = fortunesPage(await database.fortunes());
      set.headers["content-type"] = htmlContentType;
      return Mustache.render(fortunesTemplate, { fortunes });
    });
}
app.listen({ hostname: "127.0.0.1", port: parsePort(), development: false });

announceReady(app.server?.port ?? 0);
