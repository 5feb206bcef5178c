// corral-engine taking PUT bodies as streams (`streamBodies`): each borrowed piece goes to the
// sink before the next is read, so the upload holds one socket chunk whatever its size. GET /ping
// answers "pong" (the abuse scenario's side request).
import { listen } from "corral/engine";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import { abuse } from "./payloads.ts";
import { sinkFor } from "./upload-sink.ts";

const server = listen({
  port: parsePort(),
  log: null,
  limits: { maxStreamedBodyBytes: 4 * 1024 * 1024 * 1024 },
  streamBodies: (exchange) => exchange.method === "PUT",
  async handler(exchange) {
    if (exchange.path === abuse.pingPath) {
      exchange.writeText(abuse.pingText);
      return;
    }
    const sink = exchange.bodyStreamed ? await sinkFor(exchange.path) : undefined;
    if (sink === undefined) {
      exchange.setStatus(404);
      return;
    }
    let size = 0;
    for await (const piece of exchange.bodyStream()) {
      size += piece.length;
      await sink.write(piece);
    }
    await sink.finish();
    exchange.writeText(String(size));
  },
});
reportCorral(server);
announceReady(server.port);
