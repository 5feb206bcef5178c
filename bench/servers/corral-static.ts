// A corral App serving the folder given by --dir at / with serveStatic (files read from disk per
// request, through staging).
import { App, serveStatic } from "corral";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import { parseDirectory } from "./static-files.ts";

const app = new App({ shared: {} });
serveStatic({ root: parseDirectory() }).mount(app, "/");
const server = app.listen({ hostname: "127.0.0.1", port: parsePort() });
reportCorral({ budget: server.budget, limits: app.limits, stats: () => server.stats() });
announceReady(server.port);
