// The corral static server with `sendfile: true`: files on disk go to the socket with the
// kernel's sendfile (Linux), as Bun.serve sends `Bun.file` bodies.
import { App, serveStatic } from "corral";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import { parseDirectory } from "./static-files.ts";

const app = new App({ shared: {} });
serveStatic({ root: parseDirectory(), sendfile: true }).mount(app, "/");
const server = app.listen({ hostname: "127.0.0.1", port: parsePort() });
reportCorral({ budget: server.budget, limits: app.limits, stats: () => server.stats() });
announceReady(server.port);
