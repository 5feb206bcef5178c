// TechEmpower's six tests on Hono (on Bun.serve), written the way Hono's docs show: `app.get`
// handlers answering with `c.json`, `c.text` and `c.html`, `c.req.query`, `c.header`, and
// `app.onError`. The database module, the clamp and the Mustache escaping are the corral example's.
import { Hono } from "hono";
import Mustache from "mustache";
import fortunesTemplate from "../../examples/techempower/fortunes.mustache" with { type: "text" };
import { clampQueries, fortunesPage, plaintextMessage } from "../../examples/techempower/rules.ts";
import { randomWorldNumber } from "../../examples/techempower/seed-data.ts";
import { isDatabaseUnavailable } from "../../examples/techempower/world-database.ts";
import { serveFetch } from "./serve-fetch.ts";
import { openBenchDatabase } from "./techempower-database.ts";

const database = await openBenchDatabase();
const app = new Hono();

app.get("/json", (c) => {
  c.header("Server", "Hono");
  return c.json({ message: "Hello, World!" });
});
app.get("/plaintext", (c) => {
  c.header("Server", "Hono");
  return c.text(plaintextMessage);
});
const synchronous = database.synchronous;
if (synchronous !== undefined) {
  // SQLite answers on this thread: synchronous handlers, as with `bun:sqlite` anywhere.
  app.get("/db", (c) => {
    c.header("Server", "Hono");
    return c.json(synchronous.findWorld(randomWorldNumber()));
  });
  app.get("/queries", (c) => {
    c.header("Server", "Hono");
    return c.json(synchronous.findRandomWorlds(clampQueries(c.req.query("queries"))));
  });
  app.get("/updates", (c) => {
    c.header("Server", "Hono");
    return c.json(synchronous.updateRandomWorlds(clampQueries(c.req.query("queries"))));
  });
  app.get("/fortunes", (c) => {
    c.header("Server", "Hono");
    return c.html(
      Mustache.render(fortunesTemplate, { fortunes: fortunesPage(synchronous.fortunes()) }),
    );
  });
} else {
  app.get("/db", async (c) => {
    c.header("Server", "Hono");
    return c.json(await database.findWorld(randomWorldNumber()));
  });
  app.get("/queries", async (c) => {
    c.header("Server", "Hono");
    return c.json(await database.findRandomWorlds(clampQueries(c.req.query("queries"))));
  });
  app.get("/updates", async (c) => {
    c.header("Server", "Hono");
    return c.json(await database.updateRandomWorlds(clampQueries(c.req.query("queries"))));
  });
  app.get("/fortunes", async (c) => {
    c.header("Server", "Hono");
    const fortunes = fortunesPage(await database.fortunes());
    return c.html(Mustache.render(fortunesTemplate, { fortunes }));
  });
}
app.onError((error, c) => {
  if (isDatabaseUnavailable(error)) {
    c.header("Retry-After", String(error.retryAfterSeconds));
    return c.text(`Service Unavailable: ${error.message}\n`, 503);
  }
  console.error(error);
  return c.text("Internal Server Error", 500);
});

serveFetch(app.fetch);
