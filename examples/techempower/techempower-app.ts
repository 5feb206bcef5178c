import {
  App,
  type AppLog,
  type Context,
  type Limits,
  middleware,
  type RequestView,
  TemplateSet,
} from "corral";
import fortunesTemplate from "./fortunes.mustache" with { type: "text" };
import { clampQueries, fortunesPage, plaintextMessage, serverName } from "./rules.ts";
import { type Fortune, randomWorldNumber } from "./seed-data.ts";
import { answerWhenNotBusy } from "./when-not-busy.ts";
import {
  isDatabaseUnavailable,
  type SynchronousWorldDatabase,
  type WorldDatabase,
} from "./world-database.ts";

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
  }).use(serverHeader);

  app.route("GET", "/json", (ctx) => {
    answerJson(ctx, { message: "Hello, World!" });
  });

  app.route("GET", "/plaintext", (ctx) => {
    ctx.response.text(200, plaintextMessage);
  });

  const synchronous = database.synchronous;
  if (synchronous !== undefined) answerAtOnce(app, synchronous);
  else answerWhenTheDatabaseDoes(app, database);

  // Anything else stays the bare 500. The App logs every error it answers with a 5xx.
  app.onError((thrown, ctx) => {
    if (!isDatabaseUnavailable(thrown)) return;
    ctx.response.text(503, `Service Unavailable: ${thrown.message}\n`);
    ctx.response.header("Retry-After", String(thrown.retryAfterSeconds));
  });
  return app;
}

/**
 * The four database routes for a database that answers on this thread (SQLite): synchronous
 * handlers. Awaiting a value that is already there would cost two promise jobs per request,
 * measured alternately, 10-20% of what a `/db` request costs, for nothing. Only a query that
 * found the file locked by another process (`DatabaseBusyError`) goes on asynchronously: it is
 * tried again on a timer (`answerWhenNotBusy`) while the loop serves other requests.
 */
function answerAtOnce(app: App<TechEmpowerShared>, database: SynchronousWorldDatabase): void {
  app.route("GET", "/db", (ctx) => {
    try {
      answerJson(ctx, database.findWorld(randomWorldNumber()));
    } catch (error) {
      return answerWhenNotBusy(
        ctx,
        error,
        () => database.findWorld(randomWorldNumber()),
        answerJson,
      );
    }
  });
  app.route("GET", "/queries", (ctx) => {
    const count = queriesParameter(ctx.request);
    try {
      answerJson(ctx, database.findRandomWorlds(count));
    } catch (error) {
      return answerWhenNotBusy(ctx, error, () => database.findRandomWorlds(count), answerJson);
    }
  });
  app.route("GET", "/updates", (ctx) => {
    const count = queriesParameter(ctx.request);
    try {
      answerJson(ctx, database.updateRandomWorlds(count));
    } catch (error) {
      return answerWhenNotBusy(ctx, error, () => database.updateRandomWorlds(count), answerJson);
    }
  });
  app.route("GET", "/fortunes", (ctx) => {
    try {
      answerFortunes(ctx, database.fortunes());
    } catch (error) {
      return answerWhenNotBusy(ctx, error, () => database.fortunes(), answerFortunes);
    }
  });
}

/**
 * The four database routes for a pooled database (PostgreSQL), which answers later: the worker
 * goes back to the engine while a query is out (`ctx.awaitOffWorker`), so requests waiting for
 * the database hold no worker and other routes keep being served; the database's own `WaitBound`
 * bounds them instead.
 */
function answerWhenTheDatabaseDoes(app: App<TechEmpowerShared>, database: WorldDatabase): void {
  app.route("GET", "/db", async (ctx) => {
    answerJson(ctx, await ctx.awaitOffWorker(database.findWorld(randomWorldNumber())));
  });
  app.route("GET", "/queries", async (ctx) => {
    const count = queriesParameter(ctx.request);
    answerJson(ctx, await ctx.awaitOffWorker(database.findRandomWorlds(count)));
  });
  app.route("GET", "/updates", async (ctx) => {
    const count = queriesParameter(ctx.request);
    answerJson(ctx, await ctx.awaitOffWorker(database.updateRandomWorlds(count)));
  });
  app.route("GET", "/fortunes", async (ctx) => {
    answerFortunes(ctx, await ctx.awaitOffWorker(database.fortunes()));
  });
}

type TechEmpowerContext = Context<TechEmpowerShared, object, object>;

/**
 * `Server` on every answer the App makes: drafted before the route is looked up, a middleware's
 * header stays on misses (404, 405, 501) and on mapped errors (503, 500) as well.
 */
const serverHeader = middleware<object, object, TechEmpowerShared>({
  before(ctx) {
    ctx.response.header("Server", serverName);
  },
});

function answerJson(ctx: TechEmpowerContext, value: unknown): void {
  ctx.response.json(200, value);
}

/** The rows plus the one added at request time, sorted, rendered with the Mustache template. */
function answerFortunes(ctx: TechEmpowerContext, rows: readonly Fortune[]): void {
  ctx.shared.templates.render(ctx.response, 200, "fortunes", { fortunes: fortunesPage(rows) });
}

/** The raw `queries` value (digits need no decoding), clamped. */
function queriesParameter(request: RequestView): number {
  return clampQueries(request.queryValueRaw("queries"));
}
