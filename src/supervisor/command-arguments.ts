import { availableParallelism } from "node:os";

/** What `--port N --processes N --hostname H` asked for, before validation by `serve`. */
export interface ServeArguments {
  readonly port: number | undefined;
  readonly processes: number;
  readonly hostname: string | undefined;
  readonly rest: readonly string[];
}

/**
 * Reads `--port N`, `--processes N` and `--hostname H` (also as `--name=value`) and leaves the
 * other arguments in `rest`; returns an error text for a malformed number. `processes` defaults
 * to `defaultProcesses`.
 */
export function parseServeArguments(
  args: readonly string[],
  defaultProcesses = availableParallelism(),
): ServeArguments | string {
  const values = new Map<string, string>();
  const rest: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const argument = args[index]!;
    const name = ["--port", "--processes", "--hostname"].find(
      (option) => argument === option || argument.startsWith(`${option}=`),
    );
    if (name === undefined) rest.push(argument);
    else if (argument === name) values.set(name, args[++index] ?? "");
    else values.set(name, argument.slice(name.length + 1));
  }
  const port = values.get("--port");
  const processes = values.get("--processes");
  if (port !== undefined && (!/^\d{1,5}$/.test(port) || Number(port) > 65535)) {
    return `invalid port ${JSON.stringify(port)}`;
  }
  if (processes !== undefined && (!/^\d{1,4}$/.test(processes) || Number(processes) < 1)) {
    return `invalid processes ${JSON.stringify(processes)}`;
  }
  return {
    port: port === undefined ? undefined : Number(port),
    processes: processes === undefined ? defaultProcesses : Number(processes),
    hostname: values.get("--hostname"),
    rest,
  };
}
