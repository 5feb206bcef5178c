import { statSync } from "node:fs";
import { resolve } from "node:path";

/**
 * Takes `--dir D` (or `--dir=D`) out of `args`: the folder served at `/files/`. Returns the rest
 * and the folder's absolute path, or a usage error text when it is missing or not a directory.
 */
export function takeDirectoryArgument(
  args: readonly string[],
): { readonly directory: string | undefined; readonly rest: readonly string[] } | string {
  const usage = "usage: bun run example file-serving --port <0-65535> [--dir <folder>]";
  const rest: string[] = [];
  let directory: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const argument = args[index]!;
    if (argument === "--dir") directory = args[++index] ?? "";
    else if (argument.startsWith("--dir=")) directory = argument.slice("--dir=".length);
    else rest.push(argument);
  }
  if (directory === undefined) return { directory, rest };
  let isDirectory = false;
  try {
    isDirectory = directory !== "" && statSync(directory).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) return `--dir ${JSON.stringify(directory)} is not a folder\n${usage}`;
  return { directory: resolve(directory), rest };
}
