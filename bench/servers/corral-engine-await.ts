// What an `await` costs a bare corral-engine handler: `GET /now` answers "Hello, World!" at once,
// `GET /await` the same after awaiting a settled promise (one promise job). Meant for
// bench/instructions.ts and bench/alternate.ts (docs/databases.md, "Measured").
import { type Exchange, listen } from "corral/engine";
import { announceReady, parsePort } from "./cli.ts";
import { helloBytes } from "./payloads.ts";

const settled = Promise.resolve();

const server = listen({
  port: parsePort(),
  log: null,
  handler(exchange) {
    if (exchange.path === "/await") return answerAfterAwait(exchange);
    exchange.setHeader("Content-Type", "text/plain");
    exchange.write(helloBytes);
  },
});

async function answerAfterAwait(exchange: Exchange): Promise<void> {
  await settled;
  exchange.setHeader("Content-Type", "text/plain");
  exchange.write(helloBytes);
}

announceReady(server.port);
