// Bun.serve answering GET /staged with the same 60 KB body as corral-staged.ts, anything else
// "pong".
import { announceReady, parsePort } from "./cli.ts";
import { abuse, makeStagedBody } from "./payloads.ts";

const stagedBody = makeStagedBody();

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: parsePort(),
  development: false,
  fetch(request) {
    if (new URL(request.url).pathname === abuse.stagedPath) {
      return new Response(stagedBody, { headers: { "Content-Type": "application/octet-stream" } });
    }
    return new Response(abuse.pingText, { headers: { "Content-Type": "text/plain" } });
  },
});
announceReady(server.port ?? 0);
