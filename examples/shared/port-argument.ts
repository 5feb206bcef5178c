/** Reads `--port N` (or `--port=N`) from the arguments; returns the port or a usage error text. */
export function parsePortArgument(args: readonly string[], name = "demo"): number | string {
  const usage = `usage: ${commandName(name)} --port <0-65535>`;
  let text: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const argument = args[index]!;
    if (argument === "--port") text = args[++index];
    else if (argument.startsWith("--port=")) text = argument.slice("--port=".length);
    else return `unknown argument ${JSON.stringify(argument)}\n${usage}`;
  }
  if (text === undefined) return `missing --port\n${usage}`;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    return `invalid port ${JSON.stringify(text)}\n${usage}`;
  }
  return Number(text);
}

/**
 * How the user started this example: a compiled executable (`bun run examples` puts them in
 * dist/) by the name it was run as, otherwise through its `bun run` script.
 */
function commandName(name: string): string {
  if (Bun.isStandaloneExecutable) return process.argv0;
  return name === "demo" ? "bun run demo" : `bun run example ${name}`;
}
