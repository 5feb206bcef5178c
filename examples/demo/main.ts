// The demo executable: `bun run demo --port <port>`. Until the App layer lands it runs on the
// engine directly: `GET /hello` answers 200 `Hello, World!`, everything else 404.
import { type Exchange, listen } from "corral-engine";
import { parsePortArgument } from "./port-argument.ts";

const helloBody = new TextEncoder().encode("Hello, World!");
const notFoundBody = new TextEncoder().encode("Not Found\n");

function handle(exchange: Exchange): void {
  exchange.setHeader("Content-Type", "text/plain; charset=utf-8");
  const method = exchange.method;
  if (exchange.path === "/hello" && (method === "GET" || method === "HEAD")) {
    exchange.write(helloBody);
    return;
  }
  exchange.setStatus(404);
  exchange.write(notFoundBody);
}

const port = parsePortArgument(Bun.argv.slice(2));
if (typeof port === "string") {
  console.error(port);
  process.exit(2);
}
const server = listen({ hostname: "127.0.0.1", port, handler: handle });
console.log(`corral demo listening on http://${server.hostname}:${server.port}/`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.stop({ graceMs: 2000 }).then(() => {
      console.log("corral demo stopped");
      process.exit(0);
    });
  });
}
