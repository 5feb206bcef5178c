// Bun.serve reading `request.body` as a stream into the same sinks as corral-upload.ts; GET /ping
// answers "pong" (the abuse scenario's side request).
import { announceReady, parsePort } from "./cli.ts";
import { abuse } from "./payloads.ts";
import { sinkFor } from "./upload-sink.ts";

const server = Bun.serve({
  port: parsePort(),
  hostname: "127.0.0.1",
  // The default (128 MiB) would refuse the 1 GiB upload.
  maxRequestBodySize: 4 * 1024 * 1024 * 1024,
  async fetch(request) {
    if (request.method === "GET" && new URL(request.url).pathname === abuse.pingPath) {
      return new Response(abuse.pingText);
    }
    const sink =
      request.method === "PUT" ? await sinkFor(new URL(request.url).pathname) : undefined;
    if (sink === undefined || request.body === null) return new Response(null, { status: 404 });
    let size = 0;
    for await (const piece of request.body) {
      size += piece.length;
      await sink.write(piece);
    }
    await sink.finish();
    return new Response(String(size));
  },
});
announceReady(server.port!);
