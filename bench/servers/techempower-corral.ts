// TechEmpower's six tests on corral: the App of examples/techempower, default limits.
import { createTechEmpowerApp } from "../../examples/techempower/techempower-app.ts";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import { openBenchDatabase } from "./techempower-database.ts";

const app = createTechEmpowerApp(await openBenchDatabase());
const server = app.listen({ hostname: "127.0.0.1", port: parsePort() });
reportCorral({ budget: server.budget, limits: app.limits, stats: () => server.stats() });
announceReady(server.port);
