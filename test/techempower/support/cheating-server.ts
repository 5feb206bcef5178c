import Mustache from "mustache";
import fortunesTemplate from "../../../examples/techempower/fortunes.mustache" with {
  type: "text",
};
import { clampQueries, fortunesPage } from "../../../examples/techempower/rules.ts";
import { randomWorldNumber, type World } from "../../../examples/techempower/seed-data.ts";
import { SqliteWorldDatabase } from "../../../examples/techempower/sqlite-database.ts";

/** What a server may do wrong, one thing at a time; `honest` does nothing wrong. */
export type Cheat =
  | "honest"
  | "cachedRows"
  | "unescapedFortunes"
  | "cachedFortunes"
  | "updatesNotPersisted"
  | "frozenDate"
  | "noClamp"
  | "noServerHeader";

/**
 * A Bun.serve server doing TechEmpower's six tests on a SQLite file, with one `cheat`: the
 * verifier must pass the honest one and fail each of the others.
 */
export async function startCheatingServer(path: string, cheat: Cheat) {
  const database = new SqliteWorldDatabase(path);
  const cachedRows = new Map<number, World>();
  if (cheat === "cachedRows") {
    for (const world of await database.findRandomWorlds(10_000)) cachedRows.set(world.id, world);
  }
  const findWorld = async (id: number) => cachedRows.get(id) ?? database.findWorld(id);
  const template =
    cheat === "unescapedFortunes"
      ? fortunesTemplate.replace("{{message}}", "{{{message}}}")
      : fortunesTemplate;
  const cachedPage = Mustache.render(template, {
    fortunes: fortunesPage(await database.fortunes()),
  });
  const frozenDate = new Date().toUTCString();
  const headers = (type: string): Record<string, string> => ({
    "Content-Type": type,
    ...(cheat === "noServerHeader" ? {} : { Server: "cheat" }),
    ...(cheat === "frozenDate" ? { Date: frozenDate } : {}),
  });
  const json = (value: unknown) =>
    new Response(JSON.stringify(value), { headers: headers("application/json") });
  const count = (request: Request) => {
    const raw = new URL(request.url).searchParams.get("queries");
    return cheat === "noClamp"
      ? Math.max(0, Number.parseInt(raw ?? "1", 10) || 0)
      : clampQueries(raw);
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    routes: {
      "/json": () => json({ message: "Hello, World!" }),
      "/plaintext": () => new Response("Hello, World!", { headers: headers("text/plain") }),
      "/db": async () => json(await findWorld(randomWorldNumber())),
      "/queries": async (request) => {
        const worlds: World[] = [];
        for (let index = 0; index < count(request); index++) {
          worlds.push(await findWorld(randomWorldNumber()));
        }
        return json(worlds);
      },
      "/updates": async (request) => {
        if (cheat !== "updatesNotPersisted")
          return json(await database.updateRandomWorlds(count(request)));
        const worlds = await database.findRandomWorlds(count(request));
        for (const world of worlds) world.randomNumber = randomWorldNumber();
        return json(worlds);
      },
      "/fortunes": async () => {
        const page =
          cheat === "cachedFortunes"
            ? cachedPage
            : Mustache.render(template, { fortunes: fortunesPage(await database.fortunes()) });
        return new Response(page, { headers: headers("text/html; charset=utf-8") });
      },
    },
    fetch: () => new Response("Not Found", { status: 404 }),
  });
  return {
    port: server.port ?? 0,
    async [Symbol.asyncDispose]() {
      await server.stop(true);
      await database.close();
    },
  };
}
