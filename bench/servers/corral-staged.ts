// corral-engine with 8 workers: GET /staged answers a 60 KB body copied into the worker's
// staging (`exchange.write`), too big for the connection's output buffer, so a client that does
// not read keeps the worker until its output drains; anything else answers "pong".
import { listen } from "corral/engine";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import { abuse, makeStagedBody } from "./payloads.ts";

const stagedBody = makeStagedBody();

const server = listen({
  port: parsePort(),
  log: null,
  limits: { workers: abuse.stagedWorkers },
  handler(exchange) {
    if (exchange.path === abuse.stagedPath) {
      exchange.setHeader("Content-Type", "application/octet-stream");
      exchange.write(stagedBody);
      return;
    }
    exchange.setHeader("Content-Type", "text/plain");
    exchange.writeText(abuse.pingText);
  },
});
reportCorral(server);
announceReady(server.port);
