import type { App, AppServer } from "corral";
import { parsePortArgument } from "./port-argument.ts";

/**
 * Runs an example App from the command line: `--port N` (validated), bound to 127.0.0.1, prints
 * the budget line and its URL, and stops cleanly on SIGINT or SIGTERM. A port it cannot listen on
 * (one in use, for example) is one line on stderr and exit status 1.
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
  const hostname = "127.0.0.1";
  let server: AppServer;
  try {
    server = app.listen({ hostname, port });
  } catch (error) {
    console.error(`corral ${name}: cannot listen on ${hostname}:${port}: ${listenProblem(error)}`);
    process.exit(1);
  }
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

/** What went wrong binding the socket, said plainly for the usual causes. */
function listenProblem(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "EADDRINUSE") return "the port is in use (EADDRINUSE)";
  if (code === "EACCES") return "permission denied (EACCES)";
  if (code === "EADDRNOTAVAIL") return "the address is not available here (EADDRNOTAVAIL)";
  return error instanceof Error ? error.message : String(error);
}
