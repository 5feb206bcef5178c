import { resolve } from "node:path";

/** A bench server script and the request target to load it with. */
export interface ServerTarget {
  readonly script: string;
  readonly target: string;
}

/**
 * The `SCRIPT:/target` arguments of a bench tool's command line: everything that is not an
 * option or an option's value. `flags` are the options that take no value. The split is at the
 * first `:/`, so a target may hold a URL (`/go?to=http://...`).
 */
export function serverTargets(
  argv: readonly string[],
  flags: readonly string[],
  minimum: number,
): ServerTarget[] {
  const found: ServerTarget[] = [];
  for (let index = 2; index < argv.length; index++) {
    const argument = argv[index]!;
    if (flags.includes(argument)) continue;
    if (argument.startsWith("--")) {
      index++;
      continue;
    }
    const split = argument.indexOf(":/");
    if (split <= 0) throw new Error(`bench: expected SCRIPT:/target, got ${argument}`);
    found.push({ script: resolve(argument.slice(0, split)), target: argument.slice(split + 1) });
  }
  if (found.length < minimum) {
    throw new Error(`bench: give at least ${minimum} SCRIPT:/target`);
  }
  return found;
}

/**
 * The `--server-args "A B"` option of a bench tool: arguments given to every server it starts
 * (for example `--db postgres://...` to the TechEmpower servers); none without it.
 */
export function serverArgsOption(argv: readonly string[] = Bun.argv): string[] {
  const index = argv.indexOf("--server-args");
  if (index < 0) return [];
  return (argv[index + 1] ?? "").split(" ").filter((argument) => argument !== "");
}
