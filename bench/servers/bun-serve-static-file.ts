// Bun.serve answering GET /<name> with `new Response(Bun.file(path))` from the folder of --dir.
import { announceReady, parsePort } from "./cli.ts";
import { parseDirectory, staticFiles } from "./static-files.ts";

const directory = parseDirectory();
const known = new Set<string>(staticFiles.map((file) => `/${file.name}`));

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: parsePort(),
  development: false,
  fetch(request) {
    const url = request.url;
    const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
    if (!known.has(path)) return new Response(null, { status: 404 });
    return new Response(Bun.file(directory + path));
  },
});
announceReady(server.port ?? 0);
