// TechEmpower's six tests on Bun.serve, written the way Bun's docs show: a `routes` table of
// handlers returning `Response` (`Response.json`, `new Response(text, { headers })`), an `error`
// handler. The database module, the clamp and the Mustache escaping are the corral example's.
import Mustache from "mustache";
import fortunesTemplate from "../../examples/techempower/fortunes.mustache" with { type: "text" };
import {
  clampQueries,
  fortunesPage,
  htmlContentType,
  plaintextMessage,
} from "../../examples/techempower/rules.ts";
import { type Fortune, randomWorldNumber } from "../../examples/techempower/seed-data.ts";
import { isDatabaseUnavailable } from "../../examples/techempower/world-database.ts";
import { announceReady, parsePort } from "./cli.ts";
import { openBenchDatabase } from "./techempower-database.ts";

const database = await openBenchDatabase();
const serverHeader = { Server: "Bun" };
const textHeaders = { Server: "Bun", "Content-Type": "text/plain; charset=utf-8" };
const htmlHeaders = { Server: "Bun", "Content-Type": htmlContentType };

/** `queries` from the URL: the raw value of its first `queries` entry, clamped. */
function queries(request: Request): number {
  return clampQueries(new URL(request.url).searchParams.get("queries"));
}

/**
 * The database routes: synchronous handlers for a database that answers on this thread (SQLite;
 * Bun's docs use `bun:sqlite` without `await`), async ones for PostgreSQL.
 */
function databaseRoutes(): Record<string, (request: Request) => Response | Promise<Response>> {
  const synchronous = database.synchronous;
  if (synchronous !== undefined) {
    return {
      "/db": () =>
        Response.json(synchronous.findWorld(randomWorldNumber()), { headers: serverHeader }),
      "/queries": (request) =>
        Response.json(synchronous.findRandomWorlds(queries(request)), { headers: serverHeader }),
      "/updates": (request) =>
        Response.json(synchronous.updateRandomWorlds(queries(request)), { headers: serverHeader }),
      "/fortunes": () => fortunesResponse(synchronous.fortunes()),
    };
  }
  return {
    "/db": async () =>
      Response.json(await database.findWorld(randomWorldNumber()), { headers: serverHeader }),
    "/queries": async (request) =>
      Response.json(await database.findRandomWorlds(queries(request)), { headers: serverHeader }),
    "/updates": async (request) =>
      Response.json(await database.updateRandomWorlds(queries(request)), { headers: serverHeader }),
    "/fortunes": async () => fortunesResponse(await database.fortunes()),
  };
}

function fortunesResponse(rows: readonly Fortune[]): Response {
  const fortunes = fortunesPage(rows);
  return new Response(Mustache.render(fortunesTemplate, { fortunes }), { headers: htmlHeaders });
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: parsePort(),
  development: false,
  routes: {
    "/json": () => Response.json({ message: "Hello, World!" }, { headers: serverHeader }),
    "/plaintext": () => new Response(plaintextMessage, { headers: textHeaders }),
    ...databaseRoutes(),
  },
  fetch: () => new Response("Not Found", { status: 404, headers: textHeaders }),
  error(error) {
    if (isDatabaseUnavailable(error)) {
      const headers = { ...textHeaders, "Retry-After": String(error.retryAfterSeconds) };
      return new Response(`Service Unavailable: ${error.message}\n`, { status: 503, headers });
    }
    console.error(error);
    return new Response("Internal Server Error", { status: 500, headers: textHeaders });
  },
});
announceReady(server.port ?? 0);
