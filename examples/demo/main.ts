// The demo executable: `bun run demo --port <port>` serves /hello, /form and /upload.

import { createDemoApp } from "./demo-app.ts";
import { parsePortArgument } from "./port-argument.ts";

const port = parsePortArgument(Bun.argv.slice(2));
if (typeof port === "string") {
  console.error(port);
  process.exit(2);
}
const app = createDemoApp();
const server = app.listen({ hostname: "127.0.0.1", port });
console.log(`corral demo listening on http://${server.hostname}:${server.port}/`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    app.stop({ graceMs: 2000 }).then(() => {
      console.log("corral demo stopped");
      process.exit(0);
    });
  });
}
