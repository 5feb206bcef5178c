// Bun.serve with a static route per file: `routes: { "/<name>": Bun.file(path) }`.
import { announceReady, parsePort } from "./cli.ts";
import { parseDirectory, staticFiles } from "./static-files.ts";

const directory = parseDirectory();
const routes: Record<string, Response> = {};
for (const file of staticFiles)
  routes[`/${file.name}`] = new Response(Bun.file(`${directory}/${file.name}`));

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: parsePort(),
  development: false,
  routes,
  fetch() {
    return new Response(null, { status: 404 });
  },
});
announceReady(server.port ?? 0);
