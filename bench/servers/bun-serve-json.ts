// Bun.serve answering the compress scenario's 16 KiB of JSON as it is (Bun.serve does not
// compress HTTP responses itself).
import { announceReady, parsePort } from "./cli.ts";
import { jsonBody, jsonPath } from "./payloads.ts";

const headers = { "Content-Type": "application/json" };
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: parsePort(),
  fetch(request) {
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("://") + 3);
    if (url.slice(pathStart) !== jsonPath) return new Response("Not Found", { status: 404 });
    return new Response(jsonBody, { headers });
  },
});
announceReady(server.port ?? 0);
