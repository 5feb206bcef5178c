/** What an example was asked to serve on. */
export interface ServeArguments {
  readonly port: number;
  /** How many processes share the port (see `serve` in corral); 1 by default. */
  readonly processes: number;
}

/**
 * Reads `--port N` and `--processes N` (or `--name=N`) from the arguments; returns them or a
 * usage error text.
 */
export function parseServeArguments(
  args: readonly string[],
  name = "demo",
): ServeArguments | string {
  const usage = `usage: ${commandName(name)} --port <0-65535> [--processes <1-1024>]`;
  const texts = new Map<string, string | undefined>();
  for (let index = 0; index < args.length; index++) {
    const argument = args[index]!;
    const option = ["--port", "--processes"].find(
      (known) => argument === known || argument.startsWith(`${known}=`),
    );
    if (option === undefined) return `unknown argument ${JSON.stringify(argument)}\n${usage}`;
    texts.set(option, argument === option ? args[++index] : argument.slice(option.length + 1));
  }
  const port = texts.get("--port");
  const processes = texts.has("--processes") ? texts.get("--processes") : "1";
  if (port === undefined) return `missing --port\n${usage}`;
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
    return `invalid port ${JSON.stringify(port)}\n${usage}`;
  }
  if (processes === undefined || !/^\d{1,4}$/.test(processes) || !inRange(Number(processes))) {
    return `invalid processes ${JSON.stringify(processes)}\n${usage}`;
  }
  return { port: Number(port), processes: Number(processes) };
}

function inRange(processes: number): boolean {
  return processes >= 1 && processes <= 1024;
}

/**
 * How the user started this example: a compiled executable (`bun run examples` puts them in
 * dist/) by the name it was run as, otherwise through its `bun run` script.
 */
function commandName(name: string): string {
  if (Bun.isStandaloneExecutable) return process.argv0;
  return name === "demo" ? "bun run demo" : `bun run example ${name}`;
}
