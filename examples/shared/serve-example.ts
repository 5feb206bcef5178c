import { type App, type AppServer, serve } from "corral";
import { parseServeArguments } from "./serve-arguments.ts";

/** What an example's main.ts exports by default: makes its App (once in each process). */
// biome-ignore lint/suspicious/noExplicitAny: examples' Apps have their own shared state.
export type CreateApp = () => App<any, any> | Promise<App<any, any>>;

/**
 * Runs an example from the command line: `--port N` (validated) and `--processes N` (1 by
 * default), bound to 127.0.0.1; prints the budget line and its URL, and stops cleanly on SIGINT
 * or SIGTERM. With more than one process, `serve` runs `entryPath` (whose default export is
 * `createApp`) in each, all on one port. The printed URL opens on `startPath`: an example with no
 * page at `/` names one of its GET routes, so the URL it prints answers.
 */
export async function serveExample(
  name: string,
  entryPath: string,
  createApp: CreateApp,
  args: readonly string[],
  startPath = "/",
): Promise<void> {
  const parsed = parseServeArguments(args, name);
  if (typeof parsed === "string") {
    console.error(parsed);
    process.exit(2);
  }
  if (parsed.processes === 1) {
    const app = await createApp();
    const hostname = "127.0.0.1";
    let server: AppServer;
    try {
      server = app.listen({ hostname, port: parsed.port });
    } catch (error) {
      // A port it cannot listen on (one in use, for example) is one line and exit status 1.
      console.error(
        `corral ${name}: cannot listen on ${hostname}:${parsed.port}: ${listenProblem(error)}`,
      );
      process.exit(1);
    }
    // Before the line that says it listens: whoever reads that line may signal at once.
    stopOnSignals(name, (graceMs) => app.stop({ graceMs }));
    console.log(`corral ${name} listening on http://${server.hostname}:${server.port}${startPath}`);
    return;
  }
  let group: Awaited<ReturnType<typeof serve>>;
  try {
    group = await serve(entryPath, {
      port: parsed.port,
      processes: parsed.processes,
      handleSignals: false,
    });
  } catch (error) {
    // A port in use, or a process that could not start (its own line said why): one line too.
    console.error(`corral ${name}: cannot serve on port ${parsed.port}: ${listenProblem(error)}`);
    process.exit(1);
  }
  stopOnSignals(name, (graceMs) => group.stop({ graceMs }));
  console.log(
    `corral ${name} listening on http://${group.hostname}:${group.port}${startPath} ` +
      `(${group.processes} processes)`,
  );
}

function stopOnSignals(name: string, stop: (graceMs: number) => Promise<void>): void {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      stop(2000).then(() => {
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
