import { App, type AppLog, type Context, type Limits, type RequestView, TemplateSet } from "corral";
import fortunesTemplate from "./fortunes.mustache" with { type: "text" };
import { clampQueries, fortunesPage, plaintextMessage, serverName } from "./rules.ts";
import { randomWorldNumber } from "./seed-data.ts";
import { isDatabaseUnavailable, type WorldDatabase } from "./world-database.ts";

/** What the handlers share: the database and the compiled fortunes page. */
export interface TechEmpowerShared {
  readonly database: WorldDatabase;
  readonly templates: TemplateSet<"fortunes">;
}

/** Options of `createTechEmpowerApp`. */
export interface TechEmpowerOptions {
  /** Overrides of the App's limits (workers, queue, deadlines). */
  readonly limits?: Partial<Limits>;
  /** Where errors answered with a 5xx are logged; `console` by default, `null` for silence. */
  readonly log?: AppLog | null;
}

/**
 * TechEmpower's six tests on one App, following its rules: `/json` and `/plaintext` built per
 * request; `/db` one random World row; `/queries?queries=N` and `/updates?queries=N` N rows, each
 * by its own query (N clamped to 1..500), the updates persisted; `/fortunes` every Fortune row
 * plus one added at request time, sorted by message, rendered with Mustache (HTML-escaped).
 * Every answer has `Server` and `Date`. A database that is busy past its bounds, or gone, is a 503
 * with `Retry-After`, and the next request tries it again.
 */
export function createTechEmpowerApp(
  database: WorldDatabase,
  options: TechEmpowerOptions = {},
): App<TechEmpowerShared> {
  const templates = new TemplateSet<"fortunes">({ templates: { fortunes: fortunesTemplate } });
  const app = new App<TechEmpowerShared>({
    shared: { database, templates },
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    log: options.log === undefined ? console : options.log,
  });

  app.route("GET", "/json", (ctx) => {
    ctx.response.json(200, { message: "Hello, World!" });
    ctx.response.header("Server", serverName);
  });

  app.route("GET", "/plaintext", (ctx) => {
    ctx.response.text(200, plaintextMessage);
    ctx.response.header("Server", serverName);
  });

  app.route("GET", "/db", async (ctx) => {
    const world = await offWorker(ctx, ctx.shared.database.findWorld(randomWorldNumber()));
    ctx.response.json(200, world);
    ctx.response.header("Server", serverName);
  });

  app.route("GET", "/queries", async (ctx) => {
    const count = queriesParameter(ctx.request);
    const worlds = await offWorker(ctx, ctx.shared.database.findRandomWorlds(count));
    ctx.response.json(200, worlds);
    ctx.response.header("Server", serverName);
  });

  app.route("GET", "/updates", async (ctx) => {
    const count = queriesParameter(ctx.request);
    const worlds = await offWorker(ctx, ctx.shared.database.updateRandomWorlds(count));
    ctx.response.json(200, worlds);
    ctx.response.header("Server", serverName);
  });

  app.route("GET", "/fortunes", async (ctx) => {
    const fortunes = fortunesPage(await offWorker(ctx, ctx.shared.database.fortunes()));
    ctx.shared.templates.render(ctx.response, 200, "fortunes", { fortunes });
    ctx.response.header("Server", serverName);
  });

  // Anything else stays the bare 500. The App logs every error it answers with a 5xx.
  app.onError((thrown, ctx) => {
    if (!isDatabaseUnavailable(thrown)) return;
    ctx.response.text(503, `Service Unavailable: ${thrown.message}\n`);
    ctx.response.header("Retry-After", String(thrown.retryAfterSeconds));
    ctx.response.header("Server", serverName);
  });
  return app;
}

/**
 * Awaits a query. A pooled database (PostgreSQL) answers later: the worker goes back to the
 * engine meanwhile (`ctx.awaitOffWorker`), so requests waiting for the database hold no worker
 * and other routes keep being served; the database's own `WaitBound` bounds them instead. SQLite
 * answers before the handler goes on (its promise is already settled): there is nothing to wait
 * for, so the worker is kept.
 */
function offWorker<T>(
  ctx: Context<TechEmpowerShared, object, object>,
  pending: Promise<T>,
): Promise<T> {
  return ctx.shared.database.kind === "postgres" ? ctx.awaitOffWorker(pending) : pending;
}

/** The raw `queries` value (digits need no decoding), clamped. */
function queriesParameter(request: RequestView): number {
  return clampQueries(request.query().firstRaw("queries")?.valueRaw);
}
