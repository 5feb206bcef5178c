import type { App } from "corral";
import { parsePortArgument } from "./port-argument.ts";

/**
 * Runs an example App from the command line: `--port N` (validated), bound to 127.0.0.1, prints
 * the budget line and its URL, and stops cleanly on SIGINT or SIGTERM.
 */
export function serveExample<Shared, Locals extends object>(
  name: string,
  app: App<Shared, Locals>,
  args: readonly string[],
): void {
  const port = parsePortArgument(args, name);
  if (typeof port === "string") {
    console.error(port);
    process.exit(2);
  }
  const server = app.listen({ hostname: "127.0.0.1", port });
  console.log(`corral ${name} listening on http://${server.hostname}:${server.port}/`);
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      app.stop({ graceMs: 2000 }).then(() => {
        console.log(`corral ${name} stopped`);
        process.exit(0);
      });
    });
  }
}
