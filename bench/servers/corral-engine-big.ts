// corral-engine answering GET /big with a 5 MiB body it lends to the engine (no copy), with a
// deliberately small staging area so that any copied payload would not fit.
import { listen } from "corral/engine";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import { bigPath, makeBigBody } from "./payloads.ts";

const fiveMiB = makeBigBody();

const server = listen({
  port: parsePort(),
  log: null,
  // stagingBytes must stay <= maxResponseBytes (64 MiB by default); no other limit depends on it.
  limits: { stagingBytes: 4096 },
  handler(exchange) {
    if (exchange.path !== bigPath) {
      exchange.setStatus(404);
      return;
    }
    exchange.setHeader("Content-Type", "application/octet-stream");
    exchange.borrowBody(fiveMiB);
  },
});
reportCorral(server);
announceReady(server.port);
