// corral-engine answering every request with a pre-encoded "Hello, World!" (default limits).
import { listen } from "corral/engine";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import { helloBytes } from "./payloads.ts";

const server = listen({
  port: parsePort(),
  log: null,
  handler(exchange) {
    exchange.setHeader("Content-Type", "text/plain");
    exchange.write(helloBytes);
  },
});
reportCorral(server);
announceReady(server.port);
