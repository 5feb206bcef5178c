/** Reads `--port N` (or `--port=N`) from the arguments; returns the port or a usage error text. */
export function parsePortArgument(args: readonly string[], name = "demo"): number | string {
  const usage =
    name === "demo"
      ? "usage: bun run demo --port <0-65535>"
      : `usage: bun run example ${name} --port <0-65535>`;
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
