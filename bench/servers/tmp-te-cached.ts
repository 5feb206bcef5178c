import { createTechEmpowerApp } from "../../examples/techempower/techempower-app.ts";
import { announceReady, parsePort } from "./cli.ts";
import { openBenchDatabase } from "./techempower-database.ts";

const database = await openBenchDatabase();
const rows = database.synchronous!.fortunes();
const mode = process.env.FORTUNE_MODE ?? "cached";
const realFortunes = database.synchronous!.fortunes.bind(database.synchronous);
(database.synchronous as { fortunes: () => unknown }).fortunes =
  mode === "cached" ? () => rows.map((row) => ({ id: row.id, message: row.message })) : realFortunes;
const app = createTechEmpowerApp(database);
const server = app.listen({ hostname: "127.0.0.1", port: parsePort() });
announceReady(server.port);
