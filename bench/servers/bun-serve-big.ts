// Bun.serve answering GET /big with a 5 MiB body.
import { announceReady, parsePort } from "./cli.ts";
import { bigPath, makeBigBody } from "./payloads.ts";

const fiveMiB = makeBigBody();

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: parsePort(),
  development: false,
  fetch(request) {
    if (new URL(request.url).pathname !== bigPath) return new Response(null, { status: 404 });
    return new Response(fiveMiB, { headers: { "Content-Type": "application/octet-stream" } });
  },
});
announceReady(server.port ?? 0);
