/** The command line every bench server takes: `--port N` (0 picks a free port). */
export function parsePort(argv: readonly string[] = Bun.argv): number {
  const index = argv.indexOf("--port");
  const text = index >= 0 ? argv[index + 1] : undefined;
  const port = Number(text ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`bench server: --port must be an integer from 0 to 65535, got ${text}`);
  }
  return port;
}

/** The line the orchestrator waits for before sending traffic. */
export function announceReady(port: number): void {
  console.log(`READY ${port}`);
}
