// Bun.serve with a fetch handler answering every request with "Hello, World!".
import { announceReady, parsePort } from "./cli.ts";
import { helloText } from "./payloads.ts";

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: parsePort(),
  development: false,
  fetch() {
    return new Response(helloText, { headers: { "Content-Type": "text/plain" } });
  },
});
announceReady(server.port ?? 0);
